#include "lab/agent/node_ops.h"
#include "lab/base/json_number.h"

#include <map>
#include <string_view>

namespace vpnlab {

using nlohmann::json;

namespace {

json failed(const Error& e) { return agent_failure(e); }
json done(const Status& s) { return agent_done(s); }

// One request on its way through the table.
struct NodeOpCall {
  AgentNode& machine;
  AgentState& state;
  const json& req;
  std::string node;  // empty for the operations on an id (a process, a probe)

  std::string text(const char* key) const { return req.at(key).get<std::string>(); }
  int number(const char* key) const { return whole_number_at<int>(req, key); }
  double seconds() const { return req.at("timeout_s").get<double>(); }
};

json serve_spawn(NodeOpCall& c) {
  SpawnSpec spec;
  spec.argv = c.req.at("argv").get<std::vector<std::string>>();
  spec.env = c.req.value("env", std::map<std::string, std::string>{});
  spec.cpus = c.req.value("cpus", std::vector<int>{});
  spec.stdout_path = c.req.value("stdout", "/dev/null");
  spec.stderr_path = c.req.value("stderr", "");
  spec.cwd = c.req.value("cwd", "");
  auto p = c.machine.spawn(c.node, std::move(spec), c.req.value("private_run", false));
  if (!p) return failed(p.error());
  return {{"ok", true}, {"id", c.state.children.add(std::move(*p))}};
}

json serve_ping(NodeOpCall& c) {
  auto addr = parse_ipv4(c.text("addr"));
  if (!addr) return failed(make_error("bad address '" + c.text("addr") + "'"));
  return done(c.machine.ping(c.node, *addr, c.seconds(), c.number("payload"), c.req.at("df").get<bool>()));
}

json serve_configure(NodeOpCall& c) {
  auto addr = parse_host_addr(c.text("addr"));
  if (!addr) return failed(make_error("bad interface address '" + c.text("addr") + "'"));
  return done(c.machine.configure_link(c.node, c.text("ifname"), *addr, c.number("mtu")));
}

json serve_get_link(NodeOpCall& c) {
  auto l = c.machine.get_link(c.node, c.text("ifname"));
  return l ? link_info_json(*l) : failed(l.error());
}

json serve_latency_start(NodeOpCall& c) {
  auto addr = parse_ipv4(c.text("addr"));
  if (!addr) return failed(make_error("bad address '" + c.text("addr") + "'"));
  return c.state.probes.add_latency(
      c.machine.latency_probe(c.node, *addr, c.number("interval_ms"), whole_number_or(c.req, "count", 0)));
}

struct NodeOp {
  std::string_view name;
  bool on_node;  // names a node (else an id of the agent's)
  json (*serve)(NodeOpCall&);
};

// Every operation both agents answer. Waits are short (wait: at most a second): an agent
// serves one request at a time and the controller repeats.
constexpr NodeOp kNodeOps[] = {
    {"spawn", true, serve_spawn},
    {"wait", false,
     [](NodeOpCall& c) { return c.state.children.wait(c.number("id"), whole_number_or(c.req, "timeout_ms", 0)); }},
    {"stop", false,
     [](NodeOpCall& c) { return c.state.children.stop(c.number("id"), whole_number_or(c.req, "grace_ms", 2000)); }},
    {"status", false, [](NodeOpCall& c) { return c.state.children.status(c.number("id")); }},
    {"cpu", false, [](NodeOpCall& c) { return c.state.children.cpu(c.number("id")); }},
    // Processes that exited since the last call (the controller's watcher makes them events).
    {"reap", false, [](NodeOpCall& c) { return c.state.children.reap(); }},
    {"wait_link", true,
     [](NodeOpCall& c) { return done(c.machine.wait_for_link(c.node, c.text("ifname"), c.seconds())); }},
    {"create_link", true,
     [](NodeOpCall& c) {
       LinkOptions o{static_cast<uint32_t>(c.number("if_id")), static_cast<uint32_t>(c.number("vni")), c.text("remote"),
                     c.number("dstport")};
       return done(c.machine.create_link(c.node, c.text("ifname"), c.text("kind"), o));
     }},
    {"delete_link", true, [](NodeOpCall& c) { return done(c.machine.delete_link(c.node, c.text("ifname"))); }},
    {"sysctl", true,
     [](NodeOpCall& c) { return done(c.machine.set_sysctls(c.node, c.req.at("settings").get<Sysctls>())); }},
    {"configure", true, serve_configure},
    {"get_link", true, serve_get_link},
    {"ping", true, serve_ping},
    {"wait_listen", true,
     [](NodeOpCall& c) { return done(c.machine.wait_tcp_listening(c.node, c.number("port"), c.seconds())); }},
    {"rps", true,
     [](NodeOpCall& c) {
       return done(c.machine.set_rps(c.node, c.req.at("ifnames").get<std::vector<std::string>>(),
                                     c.req.at("cpus").get<std::vector<int>>()));
     }},
    {"offloads", true,
     [](NodeOpCall& c) { return done(c.machine.set_offloads(c.node, c.text("ifname"), c.req.at("on").get<bool>())); }},
    {"latency_start", true, serve_latency_start},
    {"latency_stop", false, [](NodeOpCall& c) { return c.state.probes.latency_stop(c.req); }},
    {"watch_start", true,
     [](NodeOpCall& c) {
       return c.state.probes.add_watch(
           c.machine.payload_watch(c.node, c.text("ifname"), c.text("pattern"), c.number("port")));
     }},
    {"watch_stop", false, [](NodeOpCall& c) { return c.state.probes.watch_stop(c.req); }},
};

}  // namespace

std::optional<json> serve_node_op(AgentNode& machine, AgentState& state, const json& req) {
  const std::string op = req.value("op", "");
  for (const NodeOp& entry : kNodeOps) {
    if (entry.name != op) continue;
    NodeOpCall call{machine, state, req, {}};
    if (entry.on_node) {
      call.node = req.at("node").get<std::string>();
      if (auto s = machine.has_node(call.node); !s) return failed(s.error());
    }
    return entry.serve(call);
  }
  return std::nullopt;
}

std::vector<std::string> node_op_names() {
  std::vector<std::string> names;
  for (const NodeOp& entry : kNodeOps) names.emplace_back(entry.name);
  return names;
}

// The controller's side. A call may take the operation's own time and ten seconds more for
// the channel (a guest's agent under TCG answers slowly).
Result<json> NodeOpsClient::call(const char* op, json fields, double timeout_s, int interrupt_fd) {
  fields["op"] = op;
  fields["node"] = node_;
  return agent_.call(std::move(fields), static_cast<int>(timeout_s * 1000) + 10000, interrupt_fd);
}

namespace {
Status status_of(const Result<json>& r) { return r ? ok_status() : Status(r.error()); }
}  // namespace

Status NodeOpsClient::wait_for_link(const std::string& ifname, double timeout_s, int interrupt_fd) {
  return status_of(call("wait_link", {{"ifname", ifname}, {"timeout_s", timeout_s}}, timeout_s, interrupt_fd));
}
Status NodeOpsClient::create_link(const std::string& ifname, const std::string& kind, const LinkOptions& o) {
  return status_of(call("create_link",
                        {{"ifname", ifname},
                         {"kind", kind},
                         {"if_id", o.if_id},
                         {"vni", o.vni},
                         {"remote", o.remote},
                         {"dstport", o.dstport}},
                        0));
}
Status NodeOpsClient::delete_link(const std::string& ifname) {
  return status_of(call("delete_link", {{"ifname", ifname}}, 0));
}
Status NodeOpsClient::set_sysctls(const Sysctls& settings) {
  return status_of(call("sysctl", {{"settings", settings}}, 0));
}
Status NodeOpsClient::configure_link(const std::string& ifname, const HostAddr& addr, int mtu) {
  return status_of(call("configure", {{"ifname", ifname}, {"addr", addr.str()}, {"mtu", mtu}}, 0));
}
Result<LinkInfo> NodeOpsClient::get_link(const std::string& ifname) {
  auto r = call("get_link", {{"ifname", ifname}}, 0);
  if (!r) return r.error();
  return link_info_from_json(*r);
}
Status NodeOpsClient::ping(Ipv4Addr target, double timeout_s, int interrupt_fd, int payload, bool df) {
  return status_of(call("ping", {{"addr", target.str()}, {"timeout_s", timeout_s}, {"payload", payload}, {"df", df}},
                        timeout_s, interrupt_fd));
}
Status NodeOpsClient::wait_tcp_listening(int port, double timeout_s, int interrupt_fd) {
  return status_of(call("wait_listen", {{"port", port}, {"timeout_s", timeout_s}}, timeout_s, interrupt_fd));
}
Status NodeOpsClient::set_rps(const std::vector<std::string>& ifnames, const std::vector<int>& cpus) {
  return status_of(call("rps", {{"ifnames", ifnames}, {"cpus", cpus}}, 0));
}
Status NodeOpsClient::set_offloads(const std::string& ifname, bool on) {
  return status_of(call("offloads", {{"ifname", ifname}, {"on", on}}, 0));
}
Result<std::unique_ptr<LatencyProbe>> NodeOpsClient::latency_probe(Ipv4Addr target, int interval_ms, int count) {
  auto r = call("latency_start", {{"addr", target.str()}, {"interval_ms", interval_ms}, {"count", count}}, 0);
  if (!r) return r.error();
  if (r->value("id", 0) == 0) return std::unique_ptr<LatencyProbe>();
  return std::unique_ptr<LatencyProbe>(new RemoteStoppable<LatencyProbe>(&agent_, r->value("id", 0), "latency_stop"));
}
Result<std::unique_ptr<PayloadWatch>> NodeOpsClient::payload_watch(const std::string& ifname,
                                                                   const std::string& pattern, int port) {
  auto r = call("watch_start", {{"ifname", ifname}, {"pattern", pattern}, {"port", port}}, 0);
  if (!r) return r.error();
  if (r->value("id", 0) == 0) return std::unique_ptr<PayloadWatch>();
  return std::unique_ptr<PayloadWatch>(new RemoteStoppable<PayloadWatch>(&agent_, r->value("id", 0), "watch_stop"));
}

}  // namespace vpnlab
