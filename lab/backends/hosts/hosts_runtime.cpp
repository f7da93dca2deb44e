// The hosts backend behind NodeRuntime: one agent per host, reached over ssh; every node
// operation goes to the agent of the node's host, which runs it with the netns backend
// there. Nothing is created anywhere until every host has answered hello (same version)
// and check (its NIC free, its CPUs there).
#include "lab/backends/hosts/hosts_runtime.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <spdlog/spdlog.h>

#include "lab/agent/agent_process.h"
#include "lab/agent/agent_runtime.h"
#include "lab/backends/hosts/cpu_wire.h"
#include "lab/backends/hosts/host_link.h"
#include "lab/backends/hosts/plan_wire.h"
#include "lab/base/fs_util.h"
#include "lab/base/version.h"
#include "lab/kernel/namespace.h"
#include "lab/kernel/outside_load.h"

namespace vpnlab {

namespace {

using nlohmann::json;

class HostsRuntime : public AgentRuntime {
 public:
  HostsRuntime(std::vector<std::unique_ptr<HostLink>> hosts, const Plan& plan, std::shared_ptr<HostPool> pool)
      : hosts_(std::move(hosts)), pool_(std::move(pool)) {
    for (const auto& n : plan.nodes) {
      host_of_[n.name] = n.host;
      namespaces_of_[n.host].push_back(n.ns);
    }
  }
  ~HostsRuntime() override { (void)teardown(15); }
  std::string backend() const override { return "hosts"; }

  Result<std::unique_ptr<NodeProcess>> spawn(const std::string& node, SpawnSpec spec, bool private_run) override {
    AgentClient::Spawn s{spec.argv,        spec.env, spec.cpus, spec.stdout_path,
                         spec.stderr_path, spec.cwd, node,      private_run};
    std::shared_ptr<FileMirror> mirror = link(node).mirror;
    if (!mirror) return processes_.spawn(agent(node), s, where(node));
    if (auto st = mirror->push_inputs(); !st) return with_context(st.error(), where(node));
    // Its outputs come back before the runner learns that it ended.
    auto fetch = [mirror, out = spec.stdout_path, err = spec.stderr_path] {
      (void)mirror->fetch(out);
      if (err != out) (void)mirror->fetch(err);
    };
    return processes_.spawn(agent(node), s, where(node), fetch);
  }
  // Each agent holds its part's routes; it adds those of one kind.
  Status add_routes(const Plan&, PlanRoute::When when) override {
    const char* kind = when == PlanRoute::When::tunnel     ? "tunnel"
                       : when == PlanRoute::When::baseline ? "baseline"
                                                           : "always";
    for (auto& h : hosts_)
      if (auto r = h->agent->call({{"op", "routes"}, {"when", kind}}); !r)
        return with_context(r.error(), "host '" + h->host.name + "'");
    return ok_status();
  }
  // One question per machine: hosts with one boot_id share their CPUs (emulated hosts, or
  // two nodes' hosts that are one machine) and are counted once.
  Result<std::vector<MachineCpu>> cpu_times() override {
    std::vector<MachineCpu> out;
    std::map<std::string, size_t> by_boot;
    std::vector<HostLink*> asked;
    for (auto& h : hosts_) {
      std::string boot = h->hello.value("boot_id", "");
      if (auto it = by_boot.find(boot); it != by_boot.end() && !boot.empty()) {
        out[it->second].name += "+" + h->host.name;
        continue;
      }
      by_boot[boot] = out.size();
      out.push_back({h->host.name, {}, {}});
      asked.push_back(h.get());
    }
    for (size_t i = 0; i < asked.size(); ++i) {
      auto r = asked[i]->agent->call({{"op", "cpu"}});
      if (!r) return with_context(r.error(), "host '" + asked[i]->host.name + "': CPU times");
      try {
        out[i].total = cpu_from_json(r->at("total"));
        for (const auto& c : r->at("per_cpu")) out[i].per_cpu.push_back(cpu_from_json(c));
      } catch (const std::exception& e) {
        return make_error("host '" + asked[i]->host.name + "': malformed CPU times: " + e.what());
      }
    }
    return out;
  }
  std::string limits() const override { return ""; }
  bool can_watch_payload() const override { return true; }
  // The lab's namespaces on this machine (outside-load accounting): those of hosts that are
  // this machine (the same boot_id: emulated hosts), none for real ones.
  std::vector<uint64_t> inodes() const override {
    std::vector<uint64_t> out;
    const std::string here = boot_id();
    for (const auto& h : hosts_)
      if (h->hello.value("boot_id", "") == here) out.insert(out.end(), h->inodes.begin(), h->inodes.end());
    return out;
  }

  // As before this step: the controller's machine (emulated hosts are on it). Real hosts'
  // own load and cleanup are not looked at yet.
  int wait_outside_idle(int timeout_ms) override { return vpnlab::wait_outside_idle(inodes(), timeout_ms); }
  Status settle_after_teardown(double timeout_s) override { return wait_kernel_netns_cleanup(timeout_s); }

  json record(const std::string&) override {
    json hosts = json::array();
    for (const auto& h : hosts_) hosts.push_back(host_facts(*h));
    return {{"hosts", hosts}};
  }
  Audit audit() override {
    Audit a{processes_.still_tracked("a host"), {}};
    for (auto& h : hosts_) {
      auto r = h->agent->call({{"op", "audit"}});
      if (!r) {
        a.leftovers.push_back("host '" + h->host.name + "': no audit: " + r.error().message);
        continue;
      }
      for (const auto& l : (*r)["leftovers"])
        a.leftovers.push_back("host '" + h->host.name + "': " + l.get<std::string>());
      for (const auto& f : (*r)["run_files"])
        a.run_files.push_back("host '" + h->host.name + "': " + f.get<std::string>());
    }
    return a;
  }
  std::string lost() override {
    for (auto& h : hosts_)
      if (h->agent->lost()) return "host '" + h->host.name + "': agent lost (" + lost_cause(*h) + ")";
    return "";
  }
  Status teardown(double timeout_s) override {
    if (torn_down_) return ok_status();
    torn_down_ = true;
    processes_.stop_watching();
    Status result = ok_status();
    std::vector<std::unique_ptr<HostLink>> broken;
    // Every host is torn down, whatever another one did: a lost host's namespaces are named
    // for `vpnlab cleanup FILE` (its agent, if only the channel broke, tears down on EOF).
    for (auto& h : hosts_) {
      Result<json> r = h->agent->lost() ? Result<json>(left_on_lost_host(*h))
                                        : h->agent->call({{"op", "teardown"}, {"timeout_s", timeout_s}},
                                                         static_cast<int>(timeout_s * 1000) + 5000);
      if (!r && result) result = with_context(r.error(), "host '" + h->host.name + "': teardown");
      h->mirror.reset();
      h->inodes.clear();
      // A clean agent waits for the next round; one that failed is let go (its EOF tears down).
      if (r)
        pool_->idle[h->host.name] = std::move(h);
      else
        broken.push_back(std::move(h));
    }
    hosts_.clear();
    close_links(broken);
    return result;
  }

 private:
  HostLink& link(const std::string& node) {
    const std::string& host = host_of_.at(node);
    for (auto& h : hosts_)
      if (h->host.name == host) return *h;
    throw std::logic_error("node without a host");  // make_plan gives every node one
  }
  AgentClient& agent(const std::string& node) { return *link(node).agent; }
  std::string where(const std::string& node) const override {
    return "node '" + node + "' on host '" + host_of_.at(node) + "'";
  }
  AgentClient& agent_of(const std::string& node) override { return agent(node); }

  // What ssh said last (its log), or that the channel closed.
  static std::string lost_cause(const HostLink& h) {
    std::string said = ssh_last_line(h.channel.log_path);
    return said.empty() ? "its channel closed: the agent or ssh ended" : "ssh: " + said;
  }

  // A lost host cannot tear down: what it may keep, for `vpnlab cleanup FILE`.
  Error left_on_lost_host(const HostLink& h) {
    std::string left;
    for (const auto& ns : namespaces_of_[h.host.name]) left += (left.empty() ? "" : ", ") + ns;
    return make_error("agent lost (" + lost_cause(h) + "): its namespaces may be left there (" + left + ")",
                      "run 'vpnlab cleanup FILE' once the host answers again");
  }

  std::vector<std::unique_ptr<HostLink>> hosts_;
  std::map<std::string, std::string> host_of_;
  std::map<std::string, std::vector<std::string>> namespaces_of_;  // host -> its nodes' namespaces
  std::shared_ptr<HostPool> pool_;
  AgentProcesses processes_;
  bool torn_down_ = false;
};

}  // namespace

Result<std::unique_ptr<NodeRuntime>> build_hosts_runtime(const Plan& plan, const std::string& run_dir,
                                                         const HostsOptions& opts, int) {
  auto checked = connect_and_check(plan, opts, run_dir.empty() ? std::string("/tmp") : run_dir);
  if (!checked) return checked.error();
  std::vector<std::unique_ptr<HostLink>> hosts = std::move(*checked);
  auto give_up = [&](Error e) -> Result<std::unique_ptr<NodeRuntime>> {
    close_links(hosts);  // agents that built something tear it down on EOF
    return e;
  };
  for (auto& h : hosts) {
    auto r = h->agent->call({{"op", "build"}, {"part", host_part_json(plan_for_host(plan, h->host.name))}}, 60000);
    if (!r) return give_up(with_context(r.error(), "host '" + h->host.name + "'"));
    h->inodes = r->value("inodes", std::vector<uint64_t>{});
    if (run_dir.empty()) continue;
    auto shares = host_shares_files(*h->agent, run_dir);
    if (!shares) return give_up(with_context(shares.error(), "host '" + h->host.name + "'"));
    if (*shares) continue;
    h->mirror = std::make_shared<FileMirror>(h->agent.get(), run_dir, h->host.name);
    if (opts.pool->told_mirror.insert(h->host.name).second)  // once per host and run, not per round
      spdlog::info("host '{}' does not see {}: products' inputs are copied there, outputs back", h->host.name, run_dir);
  }
  return std::unique_ptr<NodeRuntime>(new HostsRuntime(std::move(hosts), plan, opts.pool));
}

}  // namespace vpnlab
