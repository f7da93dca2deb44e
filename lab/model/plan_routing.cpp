// Routed topologies: which nodes run the VPN, which sit behind a gateway, the subnets
// each gateway serves, the routes the lab adds, and the link each test's tunnel crosses.
#include <algorithm>

#include "lab/model/plan_parts.h"

namespace vpnlab {

namespace {

// The first link both nodes are on.
std::string shared_link(const PlanNode& a, const PlanNode& b) {
  for (const auto& ua : a.underlay)
    for (const auto& ub : b.underlay)
      if (ua.link == ub.link) return ua.link;
  return "";
}

PlanNode& node_ref(Plan* plan, const std::string& name) {
  return *std::find_if(plan->nodes.begin(), plan->nodes.end(), [&](const PlanNode& n) { return n.name == name; });
}

}  // namespace

Status plan_routing(const Topology& topo, Plan* plan) {
  for (size_t i = 0; i < topo.nodes.size(); ++i) {
    PlanNode& n = plan->nodes[i];
    n.vpn = topo.vpn_nodes.empty() || std::count(topo.vpn_nodes.begin(), topo.vpn_nodes.end(), n.name) > 0;
    n.gateway = topo.nodes[i].gateway.value_or("");
  }
  // A link carries tunnel packets when two VPN nodes are on it.
  for (const LinkSpec& link : topo.links) {
    int vpn_count = 0;
    for (const auto& name : link.nodes) vpn_count += plan->node(name)->vpn ? 1 : 0;
    for (const auto& name : link.nodes) {
      PlanNode& n = node_ref(plan, name);
      for (auto& u : n.underlay)
        if (u.link == link.name) u.carrier = n.vpn && vpn_count >= 2;
    }
  }
  // Sites: the subnet between a site client and its gateway. The client's default route
  // points at the gateway, for the baseline and every product alike.
  for (const NodeSpec& spec : topo.nodes) {
    if (!spec.gateway) continue;
    PlanNode& gw = node_ref(plan, *spec.gateway);
    const PlanNode& client = *plan->node(spec.name);
    std::string link = shared_link(client, gw);
    const LinkSpec& ls = *std::find_if(topo.links.begin(), topo.links.end(), [&](const LinkSpec& l) { return l.name == link; });
    if (std::find(gw.sites.begin(), gw.sites.end(), ls.subnet) == gw.sites.end()) gw.sites.push_back(ls.subnet);
    plan->routes.push_back(PlanRoute{spec.name, Ipv4Prefix{}, plan->underlay_address(gw.name, link), PlanRoute::When::always});
  }
  // Each gateway reaches the other gateways' sites through the tunnel (the peer's overlay
  // address) or, for the baseline, through the peer's address on a shared link.
  for (const PlanNode& g : plan->nodes) {
    if (!g.vpn) continue;
    for (const PlanNode& peer : plan->nodes) {
      if (!peer.vpn || peer.name == g.name || peer.sites.empty()) continue;
      std::string link = shared_link(g, peer);
      if (link.empty())
        return plan_error(topo, topo.nodes.front().pos, "VPN nodes '" + g.name + "' and '" + peer.name + "' share no link",
                          "put the VPN nodes on one [[link]] (the underlay the tunnels cross)");
      for (const auto& site : peer.sites) {
        plan->routes.push_back(PlanRoute{g.name, site, peer.overlay.addr, PlanRoute::When::tunnel});
        plan->routes.push_back(PlanRoute{g.name, site, plan->underlay_address(peer.name, link), PlanRoute::When::baseline});
      }
    }
  }
  for (const TestSpec& t : topo.bench.tests) {
    PlanTest pt{t, {}};
    const PlanNode& vc = *plan->node(plan->node(t.client)->vpn_node());
    for (const auto& server : t.servers) {
      const PlanNode& vs = *plan->node(plan->node(server)->vpn_node());
      if (vc.name == vs.name)
        return plan_error(topo, t.pos, "test '" + t.name + "': client '" + t.client + "' and server '" + server + "' both use VPN node '" +
                                           vc.name + "': the traffic would not cross a tunnel",
                          "pick a server that reaches the overlay through another VPN node");
      std::string link = shared_link(vc, vs);
      if (link.empty())
        return plan_error(topo, t.pos, "test '" + t.name + "': VPN nodes '" + vc.name + "' and '" + vs.name + "' share no link",
                          "put both on one [[link]]: the tunnel between them needs an underlay");
      pt.underlay_links.push_back(link);
    }
    plan->tests.push_back(std::move(pt));
  }
  return ok_status();
}

// Default pinning: node i on CPU i mod n, its daemon and its iperf3 processes together.
// On a small machine that shares CPUs between nodes; the notes say so.
void plan_pinning(int cpu_count, bool no_pin, Plan* plan) {
  if (no_pin) {
    plan->pinned = false;
    for (auto& n : plan->nodes) n.cpus.clear(), n.load_cpus.clear();
    plan->pin_notes.push_back("nothing pinned (--no-pin): the scheduler places daemons, iperf3 and softirq work");
    return;
  }
  if (cpu_count <= 0) return;
  for (size_t i = 0; i < plan->nodes.size(); ++i) {
    PlanNode& n = plan->nodes[i];
    if (!n.cpus.empty() && !n.load_cpus.empty()) continue;
    n.default_cpus = true;
    if (n.cpus.empty()) n.cpus = n.load_cpus.empty() ? std::vector<int>{static_cast<int>(i) % cpu_count} : n.load_cpus;
    if (n.load_cpus.empty()) n.load_cpus = n.cpus;
  }
  for (int cpu = 0; cpu < cpu_count; ++cpu) {
    std::vector<std::string> users;
    for (const auto& n : plan->nodes) {
      bool data = std::count(n.cpus.begin(), n.cpus.end(), cpu) > 0;
      bool load = std::count(n.load_cpus.begin(), n.load_cpus.end(), cpu) > 0;
      if (data || load) users.push_back(n.name + (data && load ? " (data plane + iperf3)" : data ? " (data plane)" : " (iperf3)"));
    }
    if (users.size() > 1 || (users.size() == 1 && users[0].find('+') != std::string::npos)) {
      std::string line = "CPU " + std::to_string(cpu) + " is shared: ";
      for (size_t k = 0; k < users.size(); ++k) line += (k ? ", " : "") + users[k];
      plan->pin_notes.push_back(line + "; with softirq work of packets received there");
    }
  }
  plan->pin_notes.push_back(plan->rps ? "receive packet steering: each node's interfaces hand received packets to the node's cpus"
                                      : "receive packet steering off ([bench] rps = false): softirq runs where packets arrive");
  for (const auto& n : plan->nodes)
    if (n.default_cpus) {
      std::string line = "node " + n.name + ": computed cpus";
      for (int c : n.cpus) line += " " + std::to_string(c);
      line += ", load_cpus";
      for (int c : n.load_cpus) line += " " + std::to_string(c);
      plan->pin_notes.push_back(line + " (not set in the topology)");
    }
}

}  // namespace vpnlab
