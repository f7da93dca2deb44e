// A NodeRuntime for unit tests of the logic above the kernel: it creates nothing, records
// every call as one line ("spawn b wireguard-go wg0", "configure b wg0 10.77.0.2/24 1400")
// and answers as the test scripts it. It checks the runner's and the session's logic, not
// the kernel (root tests do that with real namespaces).
#pragma once
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lab/base/unique_fd.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab::testing {

// What a test can see of a fake process after its owner dropped it.
struct FakeProcState {
  std::string name;
  bool running = true;
  int status = -1;
  int waited_ms = 0;  // what its owner waited for it to exit by itself, while it ran
};

class FakeProcess : public NodeProcess {
 public:
  FakeProcess(std::shared_ptr<FakeProcState> state, bool keeps_running, int status)
      : state_(std::move(state)), fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!keeps_running) exit_with(status);
  }
  const std::string& name() const override { return state_->name; }
  bool running() override { return state_->running; }
  int exit_fd() const override { return fd_.get(); }
  bool wait_exit(int timeout_ms, int = -1, bool* interrupted = nullptr) override {
    if (interrupted) *interrupted = false;
    if (!state_->running) return true;
    state_->waited_ms += timeout_ms;
    pollfd p{fd_.get(), POLLIN, 0};
    (void)poll(&p, 1, timeout_ms);
    return !state_->running;
  }
  int exit_status() const override { return state_->status; }
  bool stop(int = 2000) override {
    if (state_->running) exit_with(128 + 15);
    return false;
  }
  pid_t host_pid() const override { return 0; }
  void exit_with(int status) {
    state_->running = false;
    state_->status = status;
    uint64_t one = 1;
    (void)!write(fd_.get(), &one, sizeof one);
  }

 private:
  std::shared_ptr<FakeProcState> state_;
  UniqueFd fd_;
};

class FakeRuntime : public NodeRuntime {
 public:
  // The script: programs that keep running when spawned (daemons), exit statuses of the
  // others (default 0), programs that cannot be started, links that never appear.
  std::set<std::string> daemons;
  std::map<std::string, int> exit_status;
  std::set<std::string> unstartable;
  bool links_appear = true;
  bool pings_answered = true;
  std::string link_kind = "tun";
  std::string iperf_client_output;  // what a fake `iperf3 -c` writes to its stdout file
  // When set: what a fake `iperf3 -c` writes, by its stdout file's path (product, sample).
  std::function<std::string(const std::string&)> iperf_output_for;

  std::vector<std::string> calls;
  std::map<std::string, std::map<std::string, std::string>> env_of;  // "node program": its last spawn's environment
  std::vector<std::string>* also_to = nullptr;  // a log that outlives this runtime (the runner drops it)
  std::vector<std::shared_ptr<FakeProcState>> started;
  std::vector<std::shared_ptr<FakeProcState>>* started_also = nullptr;  // outlives this runtime

  std::string backend() const override { return "fake"; }
  Result<std::unique_ptr<NodeProcess>> spawn(const std::string& node, SpawnSpec spec, bool) override {
    std::string line = "spawn " + node;
    for (const auto& a : spec.argv) line += " " + a;
    note(line);
    const std::string prog = spec.argv.empty() ? "" : spec.argv[0];
    env_of[node + " " + prog] = spec.env;
    if (unstartable.count(prog)) {
      // What a real one leaves: its output file, saying why (the run must keep it).
      if (!spec.stdout_path.empty()) std::ofstream(spec.stdout_path) << prog << ": cannot start\n";
      return make_error("cannot start '" + prog + "'");
    }
    if (prog == "iperf3" && std::find(spec.argv.begin(), spec.argv.end(), "-c") != spec.argv.end() &&
        !spec.stdout_path.empty())
      std::ofstream(spec.stdout_path) << (iperf_output_for ? iperf_output_for(spec.stdout_path) : iperf_client_output);
    auto status = exit_status.find(prog);
    started.push_back(std::make_shared<FakeProcState>(FakeProcState{prog}));
    if (started_also) started_also->push_back(started.back());
    // A daemon by its program's name ("vpnlab-crr", whatever its path) or name and mode
    // ("vpnlab-crr rr-server").
    const std::string name = prog.substr(prog.find_last_of('/') == std::string::npos ? 0 : prog.find_last_of('/') + 1);
    const bool keeps_running =
        daemons.count(name) > 0 || (spec.argv.size() > 1 && daemons.count(name + " " + spec.argv[1]) > 0);
    return std::unique_ptr<NodeProcess>(
        std::make_unique<FakeProcess>(started.back(), keeps_running, status == exit_status.end() ? 0 : status->second));
  }
  Status wait_for_link(const std::string& node, const std::string& ifname, double timeout_s, int) override {
    note("wait_for_link " + node + " " + ifname);
    if (links_appear) return ok_status();
    return make_error("link '" + ifname + "' did not appear within " + std::to_string(static_cast<int>(timeout_s)) +
                      " s");
  }
  Status create_link_of_kind(const std::string& node, const std::string& ifname, const std::string& kind,
                             const LinkOptions&) override {
    note("create_link " + node + " " + ifname + " " + kind);
    return ok_status();
  }
  Status delete_link(const std::string& node, const std::string& ifname) override {
    note("delete_link " + node + " " + ifname);
    return ok_status();
  }
  Status set_sysctls(const std::string& node, const Sysctls& settings) override {
    for (const auto& [k, v] : settings) note("sysctl " + node + " " + k + "=" + v);
    return ok_status();
  }
  Status configure_link(const std::string& node, const std::string& ifname, const HostAddr& addr, int mtu) override {
    note("configure " + node + " " + ifname + " " + addr.str() + " " + std::to_string(mtu));
    mtu_[node + "/" + ifname] = mtu;
    return ok_status();
  }
  Result<LinkInfo> get_link(const std::string& node, const std::string& ifname) override {
    LinkInfo l;
    l.name = ifname;
    l.kind = link_kind;
    l.mtu = mtu_[node + "/" + ifname];
    l.up = true;
    return l;
  }
  Status ping(const std::string& node, Ipv4Addr target, double, int, int payload, bool df) override {
    note("ping " + node + " " + target.str() + (df ? " df " + std::to_string(payload) : ""));
    if (pings_answered) return ok_status();
    return make_error("no answer from " + target.str());
  }
  // The whole mesh at once (mesh scale): every ordered pair answers, within the timeout asked.
  Result<SweepResult> sweep_mesh(const Plan& plan, double timeout_s, int) override {
    note("sweep_mesh " + std::to_string(plan.nodes.size()) + " nodes within " +
         std::to_string(static_cast<int>(timeout_s)) + " s");
    SweepResult r;
    r.pairs = r.answered = plan.nodes.size() * (plan.nodes.size() - 1);
    r.all_answered_s = 0.5;
    return r;
  }
  Status wait_tcp_listening(const std::string&, int, double, int) override { return ok_status(); }
  Status add_routes(const Plan&, PlanRoute::When) override { return ok_status(); }
  Status set_rps(const std::string&, const std::vector<std::string>&, const std::vector<int>&) override {
    return ok_status();
  }
  Status set_offloads(const std::string& node, const std::string& ifname, bool on) override {
    note("offloads " + node + " " + ifname + (on ? " on" : " off"));
    return ok_status();
  }
  Status set_root_qdisc(const std::string& node, const std::string& ifname, const std::string& kind) override {
    note("qdisc " + node + " " + ifname + " " + kind);
    return ok_status();
  }
  // A variant's rules: applied (noted), and counters that grow by rule_packets_step at
  // every read (0: rules that never match).
  int64_t rule_packets_step = 100;
  Status apply_nftables(const std::string& node, const std::string&) override {
    note("nft " + node);
    return ok_status();
  }
  Result<Counted> variant_packets(const std::string& node) override {
    rule_packets_[node] += rule_packets_step;
    return Counted{static_cast<uint64_t>(rule_packets_[node]), 1};
  }
  // A probe that answers one echo in 0.1 ms when `probes_answer`; else none (no latency columns).
  struct AnsweringProbe : LatencyProbe {
    Summary stop() override { return Summary{.sent = 1, .answered = 1, .p50_ms = 0.1, .p99_ms = 0.1, .max_ms = 0.1}; }
  };
  bool probes_answer = false;
  Result<std::unique_ptr<LatencyProbe>> latency_probe(const std::string& node, Ipv4Addr, int, int) override {
    note("latency_probe " + node);
    if (probes_answer) return std::unique_ptr<LatencyProbe>(std::make_unique<AnsweringProbe>());
    return std::unique_ptr<LatencyProbe>();
  }
  // With `watches`, a watch that saw the payload in clear on every byte of the port (what a
  // baseline shows); else none (the check is not taken).
  struct SeeingWatch : PayloadWatch {
    Summary stop() override {
      return Summary{.frames = 10, .bytes = 1000, .ipv4_bytes = 1000, .port_bytes = 1000, .pattern_seen = true};
    }
  };
  bool watches = false;
  Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string& node, const std::string&, const std::string&,
                                                      int) override {
    note("payload_watch " + node);
    if (watches) return std::unique_ptr<PayloadWatch>(std::make_unique<SeeingWatch>());
    return std::unique_ptr<PayloadWatch>();
  }
  // The machine's CPU clock: each read, 1 s of idle time passes and `steal_per_read()` s
  // of steal (none when unset: the real machine's counters are read).
  std::function<double()> steal_per_read;
  Result<std::vector<MachineCpu>> cpu_times() override {
    if (!steal_per_read) return NodeRuntime::cpu_times();
    clock_.idle += 1;
    clock_.steal += steal_per_read();
    return std::vector<MachineCpu>{{"", clock_, {clock_}}};
  }
  std::string limits() const override { return "a fake"; }
  bool can_watch_payload() const override { return watches; }
  std::vector<uint64_t> inodes() const override { return {}; }
  int wait_outside_idle(int) override { return 0; }  // a fake machine is idle
  Status settle_after_teardown(double) override { return ok_status(); }
  nlohmann::json record(const std::string&) override { return nlohmann::json::object(); }
  Audit audit() override { return {}; }
  Status teardown(double) override {
    note("teardown");
    return ok_status();
  }

  void note(const std::string& line) {
    calls.push_back(line);
    if (also_to) also_to->push_back(line);
  }

  // The recorded calls that start with `prefix`, in order.
  std::vector<std::string> calls_starting(const std::string& prefix) const {
    std::vector<std::string> out;
    for (const auto& c : calls)
      if (c.rfind(prefix, 0) == 0) out.push_back(c);
    return out;
  }

 private:
  std::map<std::string, int> mtu_;
  std::map<std::string, int64_t> rule_packets_;
  CpuTimes clock_;
};

}  // namespace vpnlab::testing
