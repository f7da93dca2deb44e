// What a product's daemons use while they run: memory, threads, and where those threads
// may run. Read from /proc; a thread that exits between listing and reading is skipped.
#include <sched.h>

#include <filesystem>
#include <fstream>

#include "lab/run/product_session.h"
#include "lab/run/rss_sampler.h"

namespace vpnlab {

TunnelCounters TunnelCounters::operator-(const TunnelCounters& b) const {
  TunnelCounters d;
  d.if_rx = if_rx - b.if_rx;
  d.if_tx = if_tx - b.if_tx;
  d.if_rx_packets = if_rx_packets - b.if_rx_packets;
  d.if_tx_packets = if_tx_packets - b.if_tx_packets;
  d.underlay_rx = underlay_rx - b.underlay_rx;
  d.underlay_tx = underlay_tx - b.underlay_tx;
  d.underlay_rx_packets = underlay_rx_packets - b.underlay_rx_packets;
  d.underlay_tx_packets = underlay_tx_packets - b.underlay_tx_packets;
  d.has_product = has_product && b.has_product;
  d.product_rx = product_rx - b.product_rx;
  d.product_tx = product_tx - b.product_tx;
  return d;
}

std::map<std::string, ProductSession::DaemonUsage> ProductSession::daemon_usage() const {
  std::map<std::string, DaemonUsage> out;
  for (const auto& d : daemons_) {
    ProcStatus st = d.child->status();
    out[d.node].rss_kb += st.peak_rss_kb;
    out[d.node].threads += st.threads;
  }
  return out;
}

std::vector<std::pair<std::string, NodeProcess*>> ProductSession::daemon_processes() const {
  std::vector<std::pair<std::string, NodeProcess*>> out;
  for (const auto& d : daemons_) out.emplace_back(d.node, d.child.get());
  return out;
}

std::vector<std::pair<std::string, pid_t>> ProductSession::daemon_pids() const {
  std::vector<std::pair<std::string, pid_t>> out;
  for (const auto& d : daemons_)
    if (d.child->host_pid() != 0) out.emplace_back(d.node, d.child->host_pid());
  return out;
}

Status ProductSession::repin_daemons() {
  for (const auto& d : daemons_) {
    const PlanNode& node = *ctx_.plan->node(d.node);
    // In a guest the daemon's threads run on the node's vCPUs, which are pinned themselves.
    if (node.cpus.empty() || d.child->host_pid() == 0) continue;
    cpu_set_t want;
    CPU_ZERO(&want);
    for (int c : node.cpus) CPU_SET(c, &want);
    std::error_code ec;
    for (const auto& task :
         std::filesystem::directory_iterator("/proc/" + std::to_string(d.child->host_pid()) + "/task", ec)) {
      pid_t tid = std::stoi(task.path().filename().string());
      cpu_set_t have;
      CPU_ZERO(&have);
      if (sched_getaffinity(tid, sizeof have, &have) != 0) continue;  // exited meanwhile
      if (CPU_EQUAL(&have, &want)) continue;
      if (sched_setaffinity(tid, sizeof want, &want) != 0 && errno != ESRCH)
        return make_error("node '" + d.node + "': cannot pin thread " + std::to_string(tid) + " of " + d.child->name() +
                          ": " + errno_text(errno));
    }
  }
  return ok_status();
}

}  // namespace vpnlab
