// vpnlab-host-agent --stdio: the hosts backend's agent, started by the controller over ssh. It
// builds its host's part of the plan with the netns backend (the very code that builds a
// lab on one machine) and serves every NodeRuntime operation for the nodes there, as JSON
// lines on stdin/stdout. Dead man: when stdin closes (the controller died, ssh dropped), it
// tears down everything it made, gives the NIC back and exits.
#include "lab/backends/hosts/host_agent.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <map>
#include <memory>

#include "lab/agent/json_lines.h"
#include "lab/agent/node_ops.h"
#include "lab/backends/hosts/host_chores.h"
#include "lab/backends/hosts/plan_wire.h"
#include "lab/backends/netns/live_topology.h"
#include "lab/backends/netns/netns_runtime.h"
#include "lab/base/cpu_stat.h"
#include "lab/base/fs_util.h"
#include "lab/base/json_number.h"
#include "lab/base/version.h"
#include "lab/kernel/netlink.h"

namespace vpnlab {

namespace {

using nlohmann::json;

json fail(const Error& e) { return agent_failure(e); }
json done(const Status& s) { return agent_done(s); }

// The node operations, done with the netns runtime that built this host's part.
class HostNode : public AgentNode {
 public:
  HostNode(const Plan& part, std::unique_ptr<NodeRuntime>& rt) : part_(part), rt_(rt) {}
  Status has_node(const std::string& node) override {
    if (!rt_) return make_error("node '" + node + "': this agent has not built its part yet", "send 'build' first");
    if (!part_.node(node)) return make_error("node '" + node + "' is not on this host");
    return ok_status();
  }
  Result<std::unique_ptr<NodeProcess>> spawn(const std::string& node, SpawnSpec spec, bool private_run) override {
    // On a host that does not share the controller's files these directories are new.
    for (const std::string* path : {&spec.stdout_path, &spec.stderr_path})
      if (path->size() > 1 && path->front() == '/' && *path != "/dev/null")
        if (auto s = make_dirs(path->substr(0, path->rfind('/')), 0750); !s) return s.error();
    if (!spec.cwd.empty())
      if (auto s = make_dirs(spec.cwd, 0750); !s) return s.error();
    return rt_->spawn(node, std::move(spec), private_run);
  }
  Status wait_for_link(const std::string& node, const std::string& ifname, double timeout_s) override {
    return rt_->wait_for_link(node, ifname, timeout_s, -1);
  }
  Status create_link(const std::string& node, const std::string& ifname, const std::string& kind,
                     const LinkOptions& options) override {
    return rt_->create_link_of_kind(node, ifname, kind, options);
  }
  Status delete_link(const std::string& node, const std::string& ifname) override {
    return rt_->delete_link(node, ifname);
  }
  Status set_sysctls(const std::string& node, const Sysctls& settings) override {
    return rt_->set_sysctls(node, settings);
  }
  Status configure_link(const std::string& node, const std::string& ifname, const HostAddr& addr, int mtu) override {
    return rt_->configure_link(node, ifname, addr, mtu);
  }
  Result<LinkInfo> get_link(const std::string& node, const std::string& ifname) override {
    return rt_->get_link(node, ifname);
  }
  Status ping(const std::string& node, Ipv4Addr target, double timeout_s, int payload, bool df) override {
    return rt_->ping(node, target, timeout_s, -1, payload, df);
  }
  Status wait_tcp_listening(const std::string& node, int port, double timeout_s) override {
    return rt_->wait_tcp_listening(node, port, timeout_s, -1);
  }
  Status set_rps(const std::string& node, const std::vector<std::string>& ifnames,
                 const std::vector<int>& cpus) override {
    return rt_->set_rps(node, ifnames, cpus);
  }
  Status set_offloads(const std::string& node, const std::string& ifname, bool on) override {
    return rt_->set_offloads(node, ifname, on);
  }
  // Latency under load and the plaintext watch run here, on the node's host, until the
  // controller asks for their summary.
  Result<std::unique_ptr<LatencyProbe>> latency_probe(const std::string& node, Ipv4Addr target, int interval_ms,
                                                      int count) override {
    return rt_->latency_probe(node, target, interval_ms, count);
  }
  Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string& node, const std::string& ifname,
                                                      const std::string& pattern, int port) override {
    return rt_->payload_watch(node, ifname, pattern, port);
  }

 private:
  const Plan& part_;
  std::unique_ptr<NodeRuntime>& rt_;
};

class HostAgent {
 public:
  json handle(const json& req) {
    json r;
    try {
      r = dispatch(req);
    } catch (const std::exception& e) {  // a field of the wrong type: the request is bad, the agent lives on
      r = fail(make_error(std::string("malformed request: ") + e.what()));
    }
    if (req.contains("seq")) r["seq"] = req["seq"];
    return r;
  }

  // Ends every process it started, removes its namespaces, returns the NIC.
  Status teardown(double timeout_s) {
    state_.probes = AgentProbes();
    state_.children.stop_all(1000);
    if (!rt_) return ok_status();
    Status s = rt_->teardown(timeout_s);
    rt_.reset();
    if (s) ::unlink(nic_ledger_path(part_).c_str());
    return s;
  }

 private:
  // The host's own operations, then the node operations both agents serve.
  json dispatch(const json& req) {
    const std::string op = req.value("op", "");
    if (op == "hello") return hello();
    if (op == "check") return check(req);
    if (op == "build") return build(req);
    if (op == "teardown") return done(teardown(req.value("timeout_s", 10.0)));
    if (op == "cpu") return host_cpu();
    if (op == "products") return host_products(req);
    if (op == "cleanup") return host_cleanup(req);
    if (op == "peek") return host_peek(req);
    if (op == "put") return host_put(req);
    if (op == "get") return host_get(req);
    if (op == "routes" || op == "audit") {
      if (!rt_) return fail(make_error("'" + op + "' before 'build'"));
      if (op == "routes") return routes(req);
      auto a = rt_->audit();
      return {{"ok", true}, {"leftovers", a.leftovers}, {"run_files", a.run_files}};
    }
    if (auto r = serve_node_op(node_, state_, req)) return *r;
    return fail(make_error("unknown op '" + op + "'"));
  }

  json hello() {
    utsname u{};
    ::uname(&u);
    return {{"ok", true},
            {"version", vpnlab_version()},
            {"kernel", u.release},
            {"hostname", u.nodename},
            {"boot_id", boot_id()},
            {"cpus", ::sysconf(_SC_NPROCESSORS_CONF)},
            {"cpu_model", cpuinfo_field(read_file_text("/proc/cpuinfo"), "model name")},
            {"pid", ::getpid()}};
  }

  // Before anything is made on any host: the NIC is free, the CPUs exist.
  json check(const json& req) {
    const std::string host = req.at("host").get<std::string>();
    json nics = json::object();
    for (const auto& nic : req.at("nics")) {
      if (auto s = check_nic_free(host, nic.get<std::string>()); !s) return fail(s.error());
      nics[nic.get<std::string>()] = host_nic_facts(nic.get<std::string>());
    }
    const long have = ::sysconf(_SC_NPROCESSORS_CONF);
    if (int cpu = whole_number_at<int>(req, "max_cpu"); cpu >= have)
      return fail(make_error("host '" + host + "' has CPUs 0.." + std::to_string(have - 1) + ", the plan pins to CPU " +
                                 std::to_string(cpu),
                             "give its nodes cpus that exist there"));
    return {{"ok", true}, {"nics", nics}};
  }

  json build(const json& req) {
    if (rt_) return fail(make_error("this agent has built its part already"));
    auto part = host_part_from_json(req.at("part"));
    if (!part) return fail(part.error());
    if (!part->nics.empty()) {
      json ledger = json::array();
      // With the NIC's MTU and admin state, so that `cleanup FILE` after a killed run gives
      // it back as it was (it holds no address: check_nic_free refused any).
      auto home = open_route_socket();
      if (!home) return fail(home.error());
      for (const auto& n : part->nics) {
        auto before = vpnlab::get_link(home->get(), n.nic);
        if (!before) return fail(with_context(before.error(), "host '" + n.host + "': nic '" + n.nic + "'"));
        ledger.push_back({{"host", n.host},
                          {"ns", n.ns},
                          {"ifname", n.ifname},
                          {"nic", n.nic},
                          {"mtu", before->mtu},
                          {"up", before->up}});
      }
      if (auto s = make_dirs(kNicLedgerDir, 0700); !s) return fail(s.error());
      if (auto s = write_file(nic_ledger_path(*part), ledger.dump() + "\n", 0600); !s) return fail(s.error());
    }
    auto rt = build_netns_runtime(*part, "", -1);
    if (!rt) return fail(rt.error());
    part_ = std::move(*part);
    rt_ = std::move(*rt);
    return {{"ok", true}, {"inodes", rt_->inodes()}};
  }

  json routes(const json& req) {
    const std::string when = req.at("when").get<std::string>();
    PlanRoute::When w = when == "tunnel"     ? PlanRoute::When::tunnel
                        : when == "baseline" ? PlanRoute::When::baseline
                                             : PlanRoute::When::always;
    return done(rt_->add_routes(part_, w));
  }

  Plan part_;
  std::unique_ptr<NodeRuntime> rt_;
  HostNode node_{part_, rt_};
  AgentState state_;
};

}  // namespace

int serve_host_agent(int in_fd, int out_fd) {
  // A dropped connection must end in the teardown below, not in a signal's default action:
  // writes to a closed stdout give EPIPE; a hangup is caught (a handler, unlike SIG_IGN,
  // does not pass to the products the agent starts).
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction hup {};
  hup.sa_handler = [](int) {};
  ::sigaction(SIGHUP, &hup, nullptr);
  JsonLines ch(UniqueFd(::dup(in_fd)), UniqueFd(::dup(out_fd)));
  HostAgent agent;
  for (;;) {
    auto req = ch.receive(-1);
    if (!req) {
      if (!ch.at_eof()) {
        (void)ch.send(fail(req.error()));  // a malformed line: say so, keep serving
        continue;
      }
      break;
    }
    const bool teardown = req->value("op", "") == "teardown";
    if (!ch.send(agent.handle(*req))) break;
    if (teardown) continue;  // the controller may still audit; EOF ends the agent
  }
  // The controller is gone (or done): nothing of the lab may stay on this host.
  Status s = agent.teardown(10);
  if (!s) std::fprintf(stderr, "vpnlab-host-agent: teardown: %s\n", s.error().message.c_str());
  return s ? 0 : 1;
}

}  // namespace vpnlab
