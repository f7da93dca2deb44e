// vpnlab-host-agent --stdio: the hosts backend's agent, started by the controller over ssh. It
// builds its host's part of the plan with the netns backend (the very code that builds a
// lab on one machine) and serves every NodeRuntime operation for the nodes there, as JSON
// lines on stdin/stdout. Dead man: when stdin closes (the controller died, ssh dropped), it
// tears down everything it made, gives the NIC back and exits.
#include "hosts/host_agent.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <map>
#include <memory>

#include "hosts/host_chores.h"
#include "hosts/plan_wire.h"
#include "lab/base/cpu_stat.h"
#include "lab/base/fs_util.h"
#include "lab/base/version.h"
#include "lab/netns_backend/live_topology.h"
#include "lab/netns_backend/netns_runtime.h"
#include "netns/netlink.h"
#include "lab/agent/agent_children.h"
#include "lab/agent/agent_probes.h"
#include "lab/agent/agent_client.h"
#include "lab/agent/json_lines.h"

namespace vpnlab {

namespace {

using nlohmann::json;

json fail(const Error& e) { return agent_failure(e); }
json done(const Status& s) { return agent_done(s); }

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
    probes_ = AgentProbes();
    children_.stop_all(1000);
    if (!rt_) return ok_status();
    Status s = rt_->teardown(timeout_s);
    rt_.reset();
    if (s) ::unlink(nic_ledger_path(part_).c_str());
    return s;
  }

 private:
  json dispatch(const json& req) {
    const std::string op = req.value("op", "");
    if (op == "hello") return hello();
    if (op == "check") return check(req);
    if (op == "build") return build(req);
    if (op == "teardown") return done(teardown(req.value("timeout_s", 10.0)));
    if (op == "reap") return children_.reap();
    if (op == "wait") return children_.wait(req.at("id").get<int>(), req.value("timeout_ms", 0));
    if (op == "stop") return children_.stop(req.at("id").get<int>(), req.value("grace_ms", 2000));
    if (op == "cpu") return host_cpu();
    if (op == "products") return host_products(req);
    if (op == "cleanup") return host_cleanup(req);
    if (op == "peek") return host_peek(req);
    if (op == "put") return host_put(req);
    if (op == "get") return host_get(req);
    if (op == "status") return children_.status(req.at("id").get<int>());
    if (!rt_) return fail(make_error("'" + op + "' before 'build'"));
    if (op == "spawn") return spawn(req);
    if (op == "latency_stop") return probes_.latency_stop(req);
    if (op == "watch_stop") return probes_.watch_stop(req);
    if (op == "routes") return routes(req);
    if (op == "audit") {
      auto a = rt_->audit();
      return {{"ok", true}, {"leftovers", a.leftovers}, {"run_files", a.run_files}};
    }
    const std::string node = req.at("node").get<std::string>();
    if (!part_.node(node)) return fail(make_error("node '" + node + "' is not on this host"));
    if (op == "wait_link") return done(rt_->wait_for_link(node, req.at("ifname"), req.at("timeout_s"), -1));
    if (op == "create_link") return done(rt_->create_link_of_kind(node, req.at("ifname"), req.at("kind"), req.at("if_id")));
    if (op == "configure") {
      auto addr = parse_host_addr(req.at("addr").get<std::string>());
      if (!addr) return fail(make_error("bad interface address '" + req.at("addr").get<std::string>() + "'"));
      return done(rt_->configure_link(node, req.at("ifname"), *addr, req.at("mtu")));
    }
    if (op == "get_link") return get_link(node, req.at("ifname"));
    if (op == "ping") {
      auto addr = parse_ipv4(req.at("addr").get<std::string>());
      if (!addr) return fail(make_error("bad address"));
      return done(rt_->ping(node, *addr, req.at("timeout_s"), -1, req.at("payload"), req.at("df")));
    }
    if (op == "wait_listen") return done(rt_->wait_tcp_listening(node, req.at("port"), req.at("timeout_s"), -1));
    if (op == "latency_start") return latency_start(node, req);
    if (op == "watch_start") return watch_start(node, req);
    if (op == "rps") return done(rt_->set_rps(node, req.at("ifnames"), req.at("cpus")));
    if (op == "offloads") return done(rt_->set_offloads(node, req.at("ifname"), req.at("on")));
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
    if (int cpu = req.at("max_cpu").get<int>(); cpu >= have)
      return fail(make_error("host '" + host + "' has CPUs 0.." + std::to_string(have - 1) + ", the plan pins to CPU " + std::to_string(cpu),
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
        ledger.push_back({{"host", n.host}, {"ns", n.ns}, {"ifname", n.ifname}, {"nic", n.nic}, {"mtu", before->mtu}, {"up", before->up}});
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

  json spawn(const json& req) {
    const std::string node = req.at("node").get<std::string>();
    if (!part_.node(node)) return fail(make_error("node '" + node + "' is not on this host"));
    SpawnSpec spec;
    spec.argv = req.at("argv").get<std::vector<std::string>>();
    spec.env = req.value("env", std::map<std::string, std::string>{});
    spec.cpus = req.value("cpus", std::vector<int>{});
    spec.stdout_path = req.value("stdout", "/dev/null");
    spec.stderr_path = req.value("stderr", "");
    spec.cwd = req.value("cwd", "");
    // On a host that does not share the controller's files these directories are new.
    for (const std::string* path : {&spec.stdout_path, &spec.stderr_path})
      if (path->size() > 1 && path->front() == '/' && *path != "/dev/null")
        if (auto s = make_dirs(path->substr(0, path->rfind('/')), 0750); !s) return fail(s.error());
    if (!spec.cwd.empty())
      if (auto s = make_dirs(spec.cwd, 0750); !s) return fail(s.error());
    auto c = rt_->spawn(node, spec, req.value("private_run", false));
    if (!c) return fail(c.error());
    return {{"ok", true}, {"id", children_.add(std::move(*c))}};
  }

  // Latency under load and the plaintext watch run here, on the node's host, until the
  // controller asks for their summary.
  json latency_start(const std::string& node, const json& req) {
    auto addr = parse_ipv4(req.at("addr").get<std::string>());
    if (!addr) return fail(make_error("bad address"));
    return probes_.add_latency(rt_->latency_probe(node, *addr, req.at("interval_ms")));
  }
  json watch_start(const std::string& node, const json& req) {
    return probes_.add_watch(rt_->payload_watch(node, req.at("ifname"), req.at("pattern"), req.at("port")));
  }

  json routes(const json& req) {
    const std::string when = req.at("when").get<std::string>();
    PlanRoute::When w = when == "tunnel" ? PlanRoute::When::tunnel : when == "baseline" ? PlanRoute::When::baseline : PlanRoute::When::always;
    return done(rt_->add_routes(part_, w));
  }

  json get_link(const std::string& node, const std::string& ifname) {
    auto l = rt_->get_link(node, ifname);
    return l ? link_info_json(*l) : fail(l.error());
  }


  Plan part_;
  std::unique_ptr<NodeRuntime> rt_;
  AgentChildren children_;
  AgentProbes probes_;
};

}  // namespace

int serve_host_agent(int in_fd, int out_fd) {
  // A dropped connection must end in the teardown below, not in a signal's default action:
  // writes to a closed stdout give EPIPE; a hangup is caught (a handler, unlike SIG_IGN,
  // does not pass to the products the agent starts).
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction hup{};
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
