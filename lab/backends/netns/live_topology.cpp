#include "lab/backends/netns/live_topology.h"

#include <fcntl.h>

#include <algorithm>
#include <chrono>

#include "lab/base/fault.h"
#include "lab/base/pidfd.h"
#include "lab/kernel/neighbour.h"
#include "lab/kernel/route.h"
#include "lab/kernel/shaping.h"
#include "lab/kernel/sysctl.h"

namespace vpnlab {

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

Result<std::unique_ptr<LiveTopology>> LiveTopology::build(const Plan& plan, BuildTimings* timings) {
  std::unique_ptr<LiveTopology> topo(new LiveTopology());
  std::vector<NetnsRequest> requests;
  for (const auto& b : plan.bridges) requests.push_back({b.ns, bridge_sysctls()});
  for (const auto& n : plan.nodes) {
    SysctlList sysctls = node_sysctls();
    // A gateway forwards between its site and the tunnel (or, for the baseline, the wan); a
    // chain's relay between its hops.
    if (n.forwards) sysctls.push_back({"net/ipv4/ip_forward", "1"});
    requests.push_back({n.ns, sysctls});
    topo->node_ns_[n.name] = n.ns;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto made = create_namespaces(requests);
  if (!made) return made.error();
  topo->namespaces_ = std::move(made.value());
  if (timings) timings->namespaces_ms = ms_since(t0);
  for (auto& ns : topo->namespaces_) topo->expected_links_[ns.name] = {"lo"};

  auto t1 = std::chrono::steady_clock::now();
  auto fail = [&](Error e) -> Result<std::unique_ptr<LiveTopology>> {
    (void)topo->teardown(5);
    return e;
  };
  std::map<std::string, int> bridge_index;  // ns -> ifindex of its bridge
  for (const auto& b : plan.bridges) {
    Netns& ns = topo->ns(b.ns);
    if (auto s = create_bridge(ns.sock.get(), b.name, b.mtu); !s)
      return fail(with_context(s.error(), "link '" + b.link + "'"));
    auto idx = link_index(ns.sock.get(), b.name);
    if (!idx) return fail(with_context(idx.error(), "link '" + b.link + "'"));
    bridge_index[b.ns] = *idx;
    topo->expected_links_[b.ns].push_back(b.name);
  }
  for (const auto& v : plan.veths) {
    fault_point("link-create");
    Netns& a = topo->ns(v.ns_a);
    Netns& b = topo->ns(v.ns_b);
    Status s = v.master_b.empty() ? create_veth(a.sock.get(), v.if_a, 0, b.fd.get(), v.if_b, v.mtu)
                                  // Create from the bridge side so the port is enslaved in the same request.
                                  : create_veth(b.sock.get(), v.if_b, bridge_index[v.ns_b], a.fd.get(), v.if_a, v.mtu);
    if (!s) return fail(with_context(s.error(), "link '" + v.link + "'"));
    // The end created second (B, or A for bridge ports) still has to come up.
    Status up = v.master_b.empty() ? set_link(b.sock.get(), v.if_b, 0, true) : set_link(a.sock.get(), v.if_a, 0, true);
    if (!up) return fail(with_context(up.error(), "link '" + v.link + "'"));
    topo->expected_links_[v.ns_a].push_back(v.if_a);
    topo->expected_links_[v.ns_b].push_back(v.if_b);
    if (v.addr_a)
      if (auto r = add_address(a.sock.get(), v.if_a, *v.addr_a); !r)
        return fail(with_context(r.error(), "link '" + v.link + "'"));
    if (v.addr_b)
      if (auto r = add_address(b.sock.get(), v.if_b, *v.addr_b); !r)
        return fail(with_context(r.error(), "link '" + v.link + "'"));
    Shaping shaping{v.rate_bps, v.delay_ms, v.jitter_ms, v.loss_pct, v.mtu, v.reorder};
    if (auto r = apply_shaping(a.sock.get(), v.if_a, shaping); !r)
      return fail(with_context(r.error(), "link '" + v.link + "'"));
    if (v.master_b.empty())
      if (auto r = apply_shaping(b.sock.get(), v.if_b, shaping); !r)
        return fail(with_context(r.error(), "link '" + v.link + "'"));
  }
  for (const auto& b : plan.bridges)
    if (b.static_neighbours)
      if (auto r = topo->add_static_neighbours(plan, b); !r)
        return fail(with_context(r.error(), "link '" + b.link + "'"));
  for (const auto& nic : plan.nics)
    if (auto r = topo->take_nic(nic); !r) return fail(with_context(r.error(), "link '" + nic.link + "'"));
  if (auto r = topo->add_routes(plan, PlanRoute::When::always); !r) return fail(r.error());
  if (timings) timings->links_ms = ms_since(t1);
  return topo;
}

Status LiveTopology::add_static_neighbours(const Plan& plan, const PlanBridge& bridge) {
  struct Member {
    const PlanVeth* veth;
    MacAddr mac;
  };
  std::vector<Member> members;
  for (const auto& v : plan.veths) {
    if (v.ns_b != bridge.ns || !v.addr_a) continue;
    auto mac = link_mac(ns(v.ns_a).sock.get(), v.if_a);
    if (!mac) return mac.error();
    members.push_back({&v, *mac});
  }
  for (const auto& m : members)
    for (const auto& other : members)
      if (&m != &other)
        if (auto s =
                add_permanent_neighbour(ns(m.veth->ns_a).sock.get(), m.veth->if_a, other.veth->addr_a->addr, other.mac);
            !s)
          return s;
  return ok_status();
}

Status check_nic_free(const std::string& host, const std::string& nic) {
  auto sock = open_route_socket();
  if (!sock) return sock.error();
  auto addrs = link_used_addresses(sock->get(), nic);
  if (!addrs)
    return make_error("host '" + host + "': no interface '" + nic + "'",
                      "set nic = \"...\" in its [[host]] to the interface wired to the other host");
  if (!addrs->empty())
    return make_error("host '" + host + "': nic '" + nic + "' has address " + addrs->front() +
                          ": the lab moves it into a node's namespace, which would cut whatever uses that address",
                      "give the lab a spare interface without addresses (not the one SSH comes in on)");
  return ok_status();
}

Status LiveTopology::take_nic(const PlanNic& nic) {
  if (!home_fd_.valid()) home_fd_ = UniqueFd(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
  if (auto s = check_nic_free(nic.host, nic.nic); !s) return s;
  auto home = open_route_socket();
  if (!home) return home.error();
  auto before = get_link(home->get(), nic.nic);
  if (!before) return before.error();
  Netns& ns = ns_of_node(nic.node);
  if (auto s = move_link(home->get(), nic.nic, ns.fd.get(), nic.ifname); !s) return s;
  taken_.push_back({nic, before->mtu, before->up});
  expected_links_[ns.name].push_back(nic.ifname);
  if (auto s = add_address(ns.sock.get(), nic.ifname, nic.addr); !s) return s;
  return set_link(ns.sock.get(), nic.ifname, nic.mtu, true);
}

// Before the namespaces go: a physical NIC in a deleted namespace would land in the
// machine's first namespace (not the host's, for an emulated host), a virtual one be deleted.
Status LiveTopology::return_nics() {
  Status result = ok_status();
  auto home = open_route_socket();
  for (auto it = taken_.rbegin(); it != taken_.rend(); ++it) {
    Netns& ns = ns_of_node(it->plan.node);
    Status s = move_link(ns.sock.get(), it->plan.ifname, home_fd_.get(), it->plan.nic);
    if (s && home) s = set_link(home->get(), it->plan.nic, it->mtu, it->up);
    if (!s && result)
      result = with_context(s.error(), "host '" + it->plan.host + "': returning nic '" + it->plan.nic + "'");
  }
  taken_.clear();
  return result;
}

Status LiveTopology::add_routes(const Plan& plan, PlanRoute::When when) {
  for (const auto& r : plan.routes) {
    if (r.when != when) continue;
    if (auto s = replace_route(ns_of_node(r.node).sock.get(), r.dest, r.via); !s)
      return with_context(s.error(), "node '" + r.node + "'");
  }
  return ok_status();
}

Result<std::unique_ptr<LiveTopology>> LiveTopology::attach(const std::vector<std::string>& ns_names) {
  std::unique_ptr<LiveTopology> topo(new LiveTopology());
  for (const auto& name : ns_names) {
    auto ns = open_namespace(name);
    if (!ns) {
      // Already gone is fine for teardown; note nothing.
      continue;
    }
    topo->namespaces_.push_back(std::move(ns.value()));
  }
  return topo;
}

LiveTopology::~LiveTopology() {
  if (!torn_down_) (void)teardown(5);
}

Netns& LiveTopology::ns(const std::string& name) {
  return *std::find_if(namespaces_.begin(), namespaces_.end(), [&](const Netns& n) { return n.name == name; });
}

Netns& LiveTopology::ns_of_node(const std::string& node) { return ns(node_ns_.at(node)); }

Result<int> LiveTopology::mount_ns_of_node(const std::string& node) {
  Netns& n = ns_of_node(node);
  if (!n.mntns.valid()) {
    auto m = create_node_mount_ns(n.fd.get());
    if (!m) return with_context(m.error(), "node '" + node + "'");
    n.mntns = std::move(m.value());
  }
  return n.mntns.get();
}

std::vector<uint64_t> LiveTopology::inodes() const {
  std::vector<uint64_t> out;
  for (const auto& n : namespaces_) out.push_back(n.inode);
  return out;
}

LiveTopology::Audit LiveTopology::audit() const {
  Audit result;
  std::vector<std::string>& found = result.leftovers;
  for (const auto& p : processes_in_namespaces(inodes()))
    found.push_back("process " + std::to_string(p.pid) + " (" + p.comm + ") still running in a lab namespace");
  for (const auto& n : namespaces_) {
    if (auto rules = extra_ipv4_rules(n.sock.get()))
      for (const auto& r : *rules) found.push_back("ip rule " + r + " left in namespace " + n.name);
    if (n.mntns.valid())
      if (auto files = files_in_private_run(n.mntns.get()))
        for (const auto& f : *files) result.run_files.push_back(f + " in the private /run of " + n.name);
    auto links = list_links(n.sock.get());
    if (!links) continue;
    auto it = expected_links_.find(n.name);
    for (const auto& l : *links) {
      if (it != expected_links_.end() && std::count(it->second.begin(), it->second.end(), l.name)) continue;
      found.push_back("link '" + l.name + "' (" + (l.kind.empty() ? "unknown kind" : l.kind) + ") left in namespace " +
                      n.name);
    }
  }
  return result;
}

Status LiveTopology::teardown(double timeout_s) {
  torn_down_ = true;
  Status nics = return_nics();
  Status removed = remove_namespaces(namespaces_, timeout_s);
  return removed ? nics : removed;
}

}  // namespace vpnlab
