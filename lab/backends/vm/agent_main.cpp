// vpnlab-agent: runs inside a guest as its PID 1 (the initramfs chroots into the host's
// root, shared read-only over 9p, and execs it). It answers JSON lines on the virtio-serial
// port named "vpnlab.agent": hello, spawn/wait/stop of processes (the same launcher as in a
// namespace: pinning, closed fds, TERM -> grace -> KILL), and network setup over netlink.
// Own agent rather than qemu-guest-agent: it reuses the lab's process launcher and netlink
// code unchanged, needs nothing installed in the guest, and speaks the lab's JSON.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "lab/agent/json_lines.h"
#include "lab/agent/node_ops.h"
#include "lab/backends/vm/guest_agent.h"
#include "lab/backends/vm/guest_net.h"
#include "lab/base/fs_util.h"
#include "lab/base/ipv4.h"
#include "lab/base/json_number.h"
#include "lab/base/process.h"
#include "lab/kernel/capabilities.h"
#include "lab/kernel/latency_probe.h"
#include "lab/kernel/netlink.h"
#include "lab/kernel/offloads.h"
#include "lab/kernel/payload_watch.h"
#include "lab/kernel/probes.h"
#include "lab/kernel/route.h"
#include "lab/kernel/rps.h"
#include "lab/kernel/shaping.h"
#include "lab/kernel/sysctl.h"

namespace vpnlab {

using nlohmann::json;

namespace {

std::string find_port() {
  const std::string base = "/sys/class/virtio-ports";
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(base.c_str()), ::closedir);
  if (!d) return {};
  while (dirent* e = ::readdir(d.get())) {
    std::istringstream f(read_file_text(base + "/" + e->d_name + "/name"));
    std::string name;
    if (f >> name && name == "vpnlab.agent") return std::string("/dev/") + e->d_name;
  }
  return {};
}

// As PID 1 the agent inherits every orphan (daemons that fork). Reaps zombies it did not
// start itself; its own children are reaped by their Child objects.
void reap_orphans(const std::set<pid_t>& own) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir("/proc"), ::closedir);
  if (!d) return;
  while (dirent* e = ::readdir(d.get())) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 1 || own.count(pid)) continue;
    std::istringstream st(read_file_text(std::string("/proc/") + e->d_name + "/stat"));
    std::string line;
    std::getline(st, line);
    auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 >= line.size()) continue;
    if (line[close + 2] == 'Z') ::waitpid(pid, nullptr, WNOHANG);
  }
}

// The node operations, in the guest's one network namespace (the node's name is the
// controller's; a guest runs one node).
class GuestNode : public AgentNode {
 public:
  GuestNode(NlSock& sock, UniqueFd& own_ns) : sock_(sock), own_ns_(own_ns) {}
  Status has_node(const std::string&) override { return ok_status(); }
  Result<std::unique_ptr<NodeProcess>> spawn(const std::string&, SpawnSpec spec, bool) override {
    auto c = Child::spawn(spec);
    if (!c) return c.error();
    return std::unique_ptr<NodeProcess>(std::move(*c));
  }
  Status wait_for_link(const std::string&, const std::string& ifname, double timeout_s) override {
    return vpnlab::wait_for_link(own_ns_.get(), sock_.get(), ifname, timeout_s, -1);
  }
  Status create_link(const std::string&, const std::string& ifname, const std::string& kind,
                     const LinkOptions& options) override {
    return create_link_of_kind(sock_.get(), ifname, kind, options);
  }
  Status delete_link(const std::string&, const std::string& ifname) override {
    return vpnlab::delete_link(sock_.get(), ifname);
  }
  // The agent's own thread is in the guest's namespace already.
  Status set_sysctls(const std::string&, const Sysctls& settings) override {
    auto applied = apply_sysctls(settings);
    return applied ? ok_status() : Status(applied.error());
  }
  Status configure_link(const std::string&, const std::string& ifname, const HostAddr& addr, int mtu) override {
    if (auto s = add_address(sock_.get(), ifname, addr); !s) return s;
    return set_link(sock_.get(), ifname, mtu, true);
  }
  Result<LinkInfo> get_link(const std::string&, const std::string& ifname) override {
    return vpnlab::get_link(sock_.get(), ifname);
  }
  Status ping(const std::string&, Ipv4Addr target, double timeout_s, int payload, bool df) override {
    return ping_until_answered(own_ns_.get(), target, timeout_s, -1, nullptr, payload, df);
  }
  Status wait_tcp_listening(const std::string&, int port, double timeout_s) override {
    return vpnlab::wait_tcp_listening(own_ns_.get(), port, timeout_s, -1);
  }
  Status set_rps(const std::string&, const std::vector<std::string>& ifnames, const std::vector<int>& cpus) override {
    return write_rps_masks(ifnames, cpus);
  }
  Status set_offloads(const std::string&, const std::string& ifname, bool on) override {
    return set_segmentation_offloads(own_ns_.get(), ifname, on);
  }
  // Latency under load and the plaintext watch run here, in the guest, until the host asks
  // for their summary.
  Result<std::unique_ptr<LatencyProbe>> latency_probe(const std::string&, Ipv4Addr target, int interval_ms,
                                                      int count) override {
    auto p = IcmpLatencyProbe::start(own_ns_.get(), target, interval_ms, count);
    if (!p) return p.error();
    return std::unique_ptr<LatencyProbe>(std::move(*p));
  }
  Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string&, const std::string& ifname,
                                                      const std::string& pattern, int port) override {
    auto index = link_index(sock_.get(), ifname);
    if (!index) return index.error();
    auto w = PacketPayloadWatch::start(own_ns_.get(), *index, pattern, port);
    if (!w) return w.error();
    return std::unique_ptr<PayloadWatch>(std::move(*w));
  }

 private:
  NlSock& sock_;
  UniqueFd& own_ns_;
};

struct Agent {
  NlSock sock;
  UniqueFd own_ns;  // the guest's one network namespace, for the calls that take a netns fd
  GuestNode node{sock, own_ns};
  AgentState state;

  static json fail(const Error& e) { return agent_failure(e); }

  // The guest's own NIC as the host made it: renamed by its MAC, its addresses, MTU and
  // the link's shaping on this end's egress, as the netns backend does (this kernel, the
  // guest's, has netem where the host's may not).
  json setup_nic(const json& req) {
    std::string name = req.at("name").get<std::string>();
    if (req.contains("mac"))
      if (auto s = rename_link_by_mac(sock.get(), req.at("mac").get<std::string>(), name); !s) return fail(s.error());
    for (const auto& a : req.value("addrs", std::vector<std::string>{})) {
      auto host = parse_host_addr(a);
      if (!host) return fail(make_error("bad interface address '" + a + "'"));
      if (auto s = add_address(sock.get(), name, *host); !s) return fail(s.error());
    }
    if (auto s = set_link(sock.get(), name, whole_number_or(req, "mtu", 0), req.value("up", true)); !s)
      return fail(s.error());
    Shaping shaping{req.value("rate_bps", 0.0), req.value("delay_ms", 0.0),        req.value("jitter_ms", 0.0),
                    req.value("loss_pct", 0.0), whole_number_or(req, "mtu", 1500), req.value("reorder", false)};
    if (shaping.any())
      if (auto s = apply_shaping(sock.get(), name, shaping); !s) return fail(s.error());
    return {{"ok", true}};
  }

  json route(const json& req) {
    std::string why;
    auto dest = parse_ipv4_prefix(req.at("dest").get<std::string>(), &why);
    if (!dest) return fail(make_error("bad route destination: " + why));
    auto via = parse_ipv4(req.at("via").get<std::string>());
    if (!via) return fail(make_error("bad gateway '" + req.at("via").get<std::string>() + "'"));
    return agent_done(replace_route(sock.get(), *dest, *via));
  }

  json sysctl(const json& req) {
    SysctlList list;
    for (const auto& [k, v] : req.at("settings").get<std::map<std::string, std::string>>()) list.emplace_back(k, v);
    auto r = apply_sysctls(list);
    if (!r) return fail(r.error());
    return {{"ok", true}, {"values", *r}};
  }

  json hello() {
    utsname u{};
    ::uname(&u);
    std::istringstream up(read_file_text("/proc/uptime"));
    double uptime = 0;
    up >> uptime;
    return {{"ok", true}, {"kernel", u.release}, {"uptime_s", uptime}, {"pid", ::getpid()}};
  }

  json poweroff() {
    state.children.stop_all(1000);
    ::sync();
    ::reboot(RB_POWER_OFF);
    return fail(make_error("poweroff failed"));
  }

  // The guest's own operations, then the node operations both agents serve.
  json dispatch(const json& req) {
    const std::string op = req.value("op", "");
    if (op == "hello") return hello();
    if (op == "setup_nic") return setup_nic(req);
    if (op == "route") return route(req);
    if (op == "sysctl") return sysctl(req);
    if (op == "poweroff") return poweroff();
    if (auto r = serve_node_op(node, state, req)) return *r;
    return fail(make_error("unknown op '" + op + "'"));
  }

  json handle(const json& req) {
    json r;
    try {
      r = dispatch(req);
    } catch (const std::exception& e) {  // a field missing or of the wrong type: the request is bad, the agent lives on
      r = fail(make_error(std::string("malformed request: ") + e.what()));
    }
    if (req.contains("seq")) r["seq"] = req["seq"];
    return r;
  }
};

}  // namespace

int serve_guest_agent() {
  Agent agent;
  auto sock = open_route_socket();
  if (!sock) {
    std::fprintf(stderr, "vpnlab-agent: %s\n", sock.error().message.c_str());
    return 1;
  }
  agent.sock = std::move(*sock);
  agent.own_ns = UniqueFd(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
  std::string port = find_port();
  if (port.empty()) {
    std::fprintf(stderr, "vpnlab-agent: no virtio port named vpnlab.agent (virtio_console loaded?)\n");
    return 1;
  }
  std::fprintf(stderr, "vpnlab-agent: serving on %s\n", port.c_str());
  for (;;) {
    JsonLines ch(UniqueFd(::open(port.c_str(), O_RDWR | O_CLOEXEC)));
    if (ch.fd() < 0) return 1;
    for (;;) {
      auto req = ch.receive(1000);
      reap_orphans(agent.state.children.pids());
      if (!req) {
        if (ch.at_eof()) break;
        continue;  // idle second: reaped, wait again
      }
      if (!ch.send(agent.handle(*req))) break;
    }
    // No host on the other end: a bounded retry, as no event says when one connects.
    ::poll(nullptr, 0, 100);
  }
}

}  // namespace vpnlab
