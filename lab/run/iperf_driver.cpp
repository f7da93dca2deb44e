// The throughput kind: iperf3 processes (expand_traffic), each its own server and client,
// the sample their sum.
#include <algorithm>

#include "lab/base/fs_util.h"
#include "lab/base/stats.h"
#include "lab/record/figures.h"
#include "lab/record/run_layout.h"
#include "lab/run/iperf.h"
#include "lab/run/test_driver.h"

namespace vpnlab {

namespace {

class IperfDriver : public TestDriver {
 public:
  std::string kind() const override { return "throughput"; }
  std::vector<std::string> server_argv(const SampleContext&, const TrafficProcess& p) const override {
    return iperf_server_argv(p.port);
  }
  bool with_echoes() const override { return true; }  // latency under load
  // The kind column stays empty: throughput is the default kind of older files too.
  void shape_row(const Plan& plan, const TestSpec& t, SampleRow* row) const override {
    row->streams = t.streams;
    row->reverse = t.reverse;
    row->mss = t.mss.value_or(0);
    if (!t.udp) return;
    row->protocol = "udp";
    row->payload_bytes = udp_length(t, plan.overlay_mtu);
    row->offered_bps = t.bitrate_bps;
  }

  // Each iperf3 client pinned to its load CPU.
  std::vector<SpawnSpec> client_specs(const SampleContext& c, const std::string& label,
                                      const std::vector<TrafficProcess>& procs, double duration_s) const override {
    const TestSpec& t = c.test->spec;
    std::vector<SpawnSpec> specs(procs.size());
    for (size_t i = 0; i < procs.size(); ++i) {
      IperfClientOptions o;
      o.server_address = c.plan->target_address(*c.test, procs[i].server_index, c.session->tunnel()).str();
      o.port = procs[i].port;
      o.duration_s = duration_s;
      o.streams = procs[i].parallel;
      o.reverse = t.reverse;
      o.bidirectional = t.bidirectional;
      o.udp = t.udp;
      o.bitrate_bps = procs[i].bitrate_bps;
      o.length = procs[i].length;
      o.mss = t.mss;
      o.repeating_payload = c.repeating_payload;
      specs[i].argv = iperf_client_argv(o);
      if (procs[i].client_cpu >= 0) specs[i].cpus = {procs[i].client_cpu};
      specs[i].stdout_path = c.raw_dir + "/" + process_label(label, i, procs.size()) + kIperfSuffix;
      specs[i].stderr_path = c.log_dir + "/" + process_label(label, i, procs.size()) + "-client.err";
    }
    return specs;
  }

  // iperf3's own results, summed over the processes.
  Status merge(const SampleContext& c, const SampleOutput& out, SampleRow* row, ExpectedBytes* expect,
               uint64_t* delivered) const override {
    const TestSpec& t = c.test->spec;
    auto vpn_of = [&](const std::string& node) { return c.plan->node(node)->vpn_node(); };
    uint64_t udp_packets = 0, udp_lost = 0;
    row->gbps = 0;
    row->retransmits = t.udp ? -1 : 0;
    double gbit = 0;
    if (t.udp) row->offered_bps = 0;  // what the senders achieved, not what was asked
    std::vector<double> peer_gbps(t.servers.size(), 0);
    std::vector<int64_t> peer_retransmits(t.servers.size(), 0);
    for (size_t i = 0; i < out.procs.size(); ++i) {
      auto sample = parse_iperf_json(read_file_text(out.clients[i].stdout_path));
      if (!sample)
        return make_error(out.procs.size() == 1 ? sample.error().message
                                                : "process " + std::to_string(i + 1) + ": " + sample.error().message);
      row->gbps += sample->gbps;
      if (const size_t k = out.procs[i].server_index; k < peer_gbps.size()) {
        peer_gbps[k] += sample->gbps;
        peer_retransmits[k] += std::max<int64_t>(0, sample->retransmits);
      }
      if (t.udp) row->offered_bps += sample->sent_bps;
      gbit += sample->gbps * sample->seconds;
      if (sample->retransmits >= 0 && row->retransmits >= 0) row->retransmits += sample->retransmits;
      row->generator_cpu_pct = std::max({row->generator_cpu_pct, sample->cpu_host_pct, sample->cpu_remote_pct});
      udp_packets += sample->udp_packets;
      udp_lost += sample->udp_lost;
      // Forward bytes go client -> server, reverse ones server -> client; --bidir has both.
      uint64_t forward = t.reverse ? 0 : sample->bytes_received;
      uint64_t back = t.reverse ? sample->bytes_received : sample->bytes_received_back;
      (*expect)[vpn_of(t.client)].first += forward;
      (*expect)[vpn_of(t.client)].second += back;
      (*expect)[vpn_of(out.procs[i].server)].first += back;
      (*expect)[vpn_of(out.procs[i].server)].second += forward;
      *delivered += forward + back;
    }
    row->cpu_s_per_gbit = gbit > 0 ? row->cpu_s / gbit : 0;
    if (udp_packets > 0) row->loss_pct = 100.0 * static_cast<double>(udp_lost) / static_cast<double>(udp_packets);
    peer_shares(t, peer_gbps, peer_retransmits, row);
    return ok_status();
  }

  // With several servers: each one's share of the throughput (a server may have several
  // client processes), its retransmits, and Jain's index over the shares.
  static void peer_shares(const TestSpec& t, const std::vector<double>& gbps, const std::vector<int64_t>& retransmits,
                          SampleRow* row) {
    if (t.servers.size() < 2 || gbps.size() != t.servers.size()) return;
    row->fairness = jain_index(gbps);
    for (size_t k = 0; k < gbps.size(); ++k) {
      row->peer_gbps += (k ? ";" : "") + t.servers[k] + ":" + fixed_text(gbps[k], 6);
      if (!t.udp) row->peer_retransmits += (k ? ";" : "") + t.servers[k] + ":" + std::to_string(retransmits[k]);
    }
  }
};

}  // namespace

std::unique_ptr<TestDriver> make_iperf_driver() { return std::make_unique<IperfDriver>(); }

}  // namespace vpnlab
