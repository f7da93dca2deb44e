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
#include <string>

#include "lab/base/ipv4.h"
#include "lab/base/process.h"
#include "netns/capabilities.h"
#include "netns/netlink.h"
#include "netns/offloads.h"
#include "netns/probes.h"
#include "netns/route.h"
#include "netns/rps.h"
#include "netns/shaping.h"
#include "netns/latency_probe.h"
#include "netns/payload_watch.h"
#include "netns/sysctl.h"
#include "lab/agent/agent_children.h"
#include "lab/agent/agent_probes.h"
#include "lab/agent/agent_client.h"
#include "vm/guest_agent.h"
#include "vm/guest_net.h"
#include "lab/agent/json_lines.h"

using namespace vpnlab;
using nlohmann::json;

namespace {

std::string find_port() {
  const std::string base = "/sys/class/virtio-ports";
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(base.c_str()), ::closedir);
  if (!d) return {};
  while (dirent* e = ::readdir(d.get())) {
    std::ifstream f(base + "/" + e->d_name + "/name");
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
    std::ifstream st(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    std::getline(st, line);
    auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 >= line.size()) continue;
    if (line[close + 2] == 'Z') ::waitpid(pid, nullptr, WNOHANG);
  }
}

struct Agent {
  AgentChildren children;
  AgentProbes probes;
  NlSock sock;

  UniqueFd own_ns;  // the guest's one network namespace, for the calls that take a netns fd

  static json fail(const Error& e) { return {{"ok", false}, {"error", e.message}, {"hint", e.hint}}; }
  static json done(const Status& s) { return s ? json{{"ok", true}} : fail(s.error()); }

  json spawn(const json& req) {
    SpawnSpec spec;
    spec.argv = req.value("argv", std::vector<std::string>{});
    spec.env = req.value("env", std::map<std::string, std::string>{});
    spec.cpus = req.value("cpus", std::vector<int>{});
    spec.stdout_path = req.value("stdout", "/dev/null");
    spec.stderr_path = req.value("stderr", "");
    spec.cwd = req.value("cwd", "");
    auto c = Child::spawn(spec);
    if (!c) return fail(c.error());
    pid_t pid = (*c)->pid();
    int id = children.add(std::move(*c));
    return {{"ok", true}, {"id", id}, {"pid", pid}};
  }

  json link(const json& req) {
    std::string name = req.value("name", "");
    if (req.contains("mac"))
      if (auto s = rename_link_by_mac(sock.get(), req.value("mac", ""), name); !s) return fail(s.error());
    for (const auto& a : req.value("addrs", std::vector<std::string>{})) {
      auto host = parse_host_addr(a);
      if (!host) return fail(make_error("bad interface address '" + a + "'"));
      if (auto s = add_address(sock.get(), name, *host); !s) return fail(s.error());
    }
    if (auto s = set_link(sock.get(), name, req.value("mtu", 0), req.value("up", true)); !s) return fail(s.error());
    // The link's shaping on this end's egress, as the netns backend does: this kernel
    // (the guest's) has netem where the host's may not.
    Shaping shaping{req.value("rate_bps", 0.0), req.value("delay_ms", 0.0), req.value("jitter_ms", 0.0), req.value("loss_pct", 0.0),
                    req.value("mtu", 1500)};
    if (shaping.any())
      if (auto s = apply_shaping(sock.get(), name, shaping); !s) return fail(s.error());
    return {{"ok", true}};
  }

  // Latency under load and the plaintext watch run here, in the guest, until the host asks
  // for their summary.
  json latency_start(const json& req) {
    auto addr = parse_ipv4(req.value("addr", ""));
    if (!addr) return fail(make_error("bad address '" + req.value("addr", "") + "'"));
    auto p = IcmpLatencyProbe::start(own_ns.get(), *addr, req.value("interval_ms", 10));
    if (!p) return fail(p.error());
    return probes.add_latency(std::move(*p));
  }
  json watch_start(const json& req) {
    auto index = link_index(sock.get(), req.value("ifname", ""));
    if (!index) return fail(index.error());
    auto w = PacketPayloadWatch::start(own_ns.get(), *index, req.value("pattern", ""), req.value("port", 0));
    if (!w) return fail(w.error());
    return probes.add_watch(std::move(*w));
  }

  json get_link_info(const json& req) {
    auto l = get_link(sock.get(), req.value("ifname", ""));
    return l ? link_info_json(*l) : fail(l.error());
  }


  json route(const json& req) {
    std::string why;
    auto dest = parse_ipv4_prefix(req.value("dest", ""), &why);
    if (!dest) return fail(make_error("bad route destination: " + why));
    auto via = parse_ipv4(req.value("via", ""));
    if (!via) return fail(make_error("bad gateway '" + req.value("via", "") + "'"));
    if (auto s = replace_route(sock.get(), *dest, *via); !s) return fail(s.error());
    return {{"ok", true}};
  }

  json sysctl(const json& req) {
    SysctlList list;
    for (const auto& [k, v] : req.value("settings", std::map<std::string, std::string>{})) list.emplace_back(k, v);
    auto r = apply_sysctls(list);
    if (!r) return fail(r.error());
    return {{"ok", true}, {"values", *r}};
  }

  json handle(const json& req) {
    std::string op = req.value("op", "");
    json r;
    if (op == "hello") {
      utsname u{};
      ::uname(&u);
      std::ifstream up("/proc/uptime");
      double uptime = 0;
      up >> uptime;
      r = {{"ok", true}, {"kernel", u.release}, {"uptime_s", uptime}, {"pid", ::getpid()}};
    } else if (op == "spawn") r = spawn(req);
    // Short waits only: the agent serves one request at a time; the host repeats.
    else if (op == "wait") r = children.wait(req.value("id", 0), req.value("timeout_ms", 0));
    else if (op == "stop") r = children.stop(req.value("id", 0), req.value("grace_ms", 2000));
    else if (op == "link") r = link(req);
    else if (op == "route") r = route(req);
    else if (op == "sysctl") r = sysctl(req);
    // Processes that exited since the last call (the host's watcher turns them into events).
    else if (op == "reap") r = children.reap();
    else if (op == "status") r = children.status(req.value("id", 0));
    else if (op == "get_link") r = get_link_info(req);
    else if (op == "latency_start") r = latency_start(req);
    else if (op == "latency_stop") r = probes.latency_stop(req);
    else if (op == "watch_start") r = watch_start(req);
    else if (op == "watch_stop") r = probes.watch_stop(req);
    else if (op == "wait_link") r = done(wait_for_link(own_ns.get(), sock.get(), req.value("ifname", ""), req.value("timeout_s", 5.0), -1));
    else if (op == "create_link") r = done(create_link_of_kind(sock.get(), req.value("ifname", ""), req.value("kind", ""), req.value("if_id", 0u)));
    else if (op == "wait_listen") r = done(wait_tcp_listening(own_ns.get(), req.value("port", 0), req.value("timeout_s", 5.0), -1));
    else if (op == "rps") r = done(write_rps_masks(req.value("ifnames", std::vector<std::string>{}), req.value("cpus", std::vector<int>{})));
    else if (op == "offloads") r = done(set_segmentation_offloads(own_ns.get(), req.value("ifname", ""), req.value("on", true)));
    else if (op == "ping") {
      auto addr = parse_ipv4(req.value("addr", ""));
      r = addr ? done(ping_until_answered(own_ns.get(), *addr, req.value("timeout_s", 1.0), -1, nullptr, req.value("payload", 56),
                                          req.value("df", false)))
               : fail(make_error("bad address '" + req.value("addr", "") + "'"));
    }
    else if (op == "poweroff") {
      children.stop_all(1000);
      ::sync();
      ::reboot(RB_POWER_OFF);
      r = {{"ok", false}, {"error", "poweroff failed"}};
    } else r = {{"ok", false}, {"error", "unknown op '" + op + "'"}};
    if (req.contains("seq")) r["seq"] = req["seq"];
    return r;
  }
};

}  // namespace

int vpnlab::serve_guest_agent() {
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
      reap_orphans(agent.children.pids());
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
