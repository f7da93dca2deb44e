// Routed topologies: which nodes run the VPN, which sit behind a gateway, the subnets
// each gateway serves, the routes the lab adds, and the link each test's tunnel crosses.
#include <algorithm>

#include "lab/model/plan_parts.h"

namespace vpnlab {

std::string shared_link(const PlanNode& a, const PlanNode& b) {
  for (const auto& ua : a.underlay)
    for (const auto& ub : b.underlay)
      if (ua.link == ub.link) return ua.link;
  return "";
}

PlanNode& node_ref(Plan* plan, const std::string& name) {
  return *std::find_if(plan->nodes.begin(), plan->nodes.end(), [&](const PlanNode& n) { return n.name == name; });
}

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
    const LinkSpec& ls =
        *std::find_if(topo.links.begin(), topo.links.end(), [&](const LinkSpec& l) { return l.name == link; });
    if (std::find(gw.sites.begin(), gw.sites.end(), ls.subnet) == gw.sites.end()) gw.sites.push_back(ls.subnet);
    gw.forwards = true;
    plan->routes.push_back(
        PlanRoute{spec.name, Ipv4Prefix{}, plan->underlay_address(gw.name, link), PlanRoute::When::always});
  }
  if (!topo.chains.empty()) return plan_chains(topo, plan);
  // Each gateway reaches the other gateways' sites through the tunnel (the peer's overlay
  // address) or, for the baseline, through the peer's address on a shared link.
  for (const PlanNode& g : plan->nodes) {
    if (!g.vpn) continue;
    for (const PlanNode& peer : plan->nodes) {
      if (!peer.vpn || peer.name == g.name || peer.sites.empty()) continue;
      std::string link = shared_link(g, peer);
      if (link.empty())
        return plan_error(topo, topo.nodes.front().pos,
                          "VPN nodes '" + g.name + "' and '" + peer.name + "' share no link",
                          "put the VPN nodes on one [[link]] (the underlay the tunnels cross)");
      for (const auto& site : peer.sites) {
        plan->routes.push_back(PlanRoute{g.name, site, peer.overlay.addr, PlanRoute::When::tunnel});
        plan->routes.push_back(
            PlanRoute{g.name, site, plan->underlay_address(peer.name, link), PlanRoute::When::baseline});
      }
    }
  }
  for (const TestSpec& t : topo.bench.tests) {
    PlanTest pt{t, {}};
    const PlanNode& vc = *plan->node(plan->node(t.client)->vpn_node());
    for (const auto& server : t.servers) {
      const PlanNode& vs = *plan->node(plan->node(server)->vpn_node());
      if (vc.name == vs.name)
        return plan_error(topo, t.pos,
                          "test '" + t.name + "': client '" + t.client + "' and server '" + server +
                              "' both use VPN node '" + vc.name + "': the traffic would not cross a tunnel",
                          "pick a server that reaches the overlay through another VPN node");
      std::string link = shared_link(vc, vs);
      if (link.empty())
        return plan_error(topo, t.pos,
                          "test '" + t.name + "': VPN nodes '" + vc.name + "' and '" + vs.name + "' share no link",
                          "put both on one [[link]]: the tunnel between them needs an underlay");
      pt.underlay_links.push_back(link);
    }
    plan->tests.push_back(std::move(pt));
  }
  return ok_status();
}

namespace {

// Which nodes must not share a CPU: for every test, each node on the sending side (the
// client and the VPN node it sends through) against each on a receiving side (a server and
// its VPN node). Sharing would make one CPU do both ends' work, so a product's cost and
// speed would depend on where the scheduler puts the two ends, not on the product.
std::vector<std::vector<int>> cpu_conflicts(const Plan& plan) {
  std::vector<std::vector<int>> conflicts(plan.nodes.size(), std::vector<int>(plan.nodes.size(), 0));
  auto index = [&](const std::string& name) {
    for (size_t i = 0; i < plan.nodes.size(); ++i)
      if (plan.nodes[i].name == name) return i;
    return size_t{0};
  };
  for (const auto& t : plan.tests) {
    const PlanNode& client = *plan.node(t.spec.client);
    std::vector<size_t> senders = {index(client.name), index(client.vpn_node())};
    for (const auto& server_name : t.spec.servers) {
      const PlanNode& server = *plan.node(server_name);
      for (size_t r : {index(server.name), index(server.vpn_node())})
        for (size_t s : senders)
          if (r != s) conflicts[r][s] = conflicts[s][r] = 1;
    }
  }
  return conflicts;
}

bool on_cpu(const PlanNode& n, int cpu) {
  return std::count(n.cpus.begin(), n.cpus.end(), cpu) > 0 ||
         std::count(n.load_cpus.begin(), n.load_cpus.end(), cpu) > 0;
}

// Greedy placement: nodes in most tests first, each on the CPU where it meets the fewest
// nodes it must not share with, then the least used, then the lowest number. CPUs written
// in the topology stay. Returns a note per node for what was computed.
std::vector<std::string> place_nodes(int cpu_count, Plan* plan) {
  std::vector<std::string> notes(plan->nodes.size());
  auto conflicts = cpu_conflicts(*plan);
  std::vector<size_t> order;
  for (size_t i = 0; i < plan->nodes.size(); ++i) order.push_back(i);
  auto degree = [&](size_t i) { return std::count(conflicts[i].begin(), conflicts[i].end(), 1); };
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return degree(x) > degree(y); });
  std::vector<bool> placed(plan->nodes.size());
  for (size_t i = 0; i < plan->nodes.size(); ++i)
    placed[i] = !plan->nodes[i].cpus.empty() && !plan->nodes[i].load_cpus.empty();
  for (size_t i : order) {
    PlanNode& n = plan->nodes[i];
    if (placed[i]) continue;
    n.default_cpus = true;
    const bool cpus_written = !n.cpus.empty(), load_written = !n.load_cpus.empty();
    if (n.cpus.empty() && !n.load_cpus.empty()) n.cpus = n.load_cpus;
    if (n.cpus.empty()) {
      int best = 0;
      std::pair<int, int> best_cost{1 << 30, 1 << 30};
      for (int cpu = 0; cpu < cpu_count; ++cpu) {
        std::pair<int, int> cost{0, 0};
        for (size_t j = 0; j < plan->nodes.size(); ++j) {
          if (j == i || !placed[j] || !on_cpu(plan->nodes[j], cpu)) continue;
          cost.first += conflicts[i][j];
          cost.second += 1;
        }
        if (cost < best_cost) best_cost = cost, best = cpu;
      }
      n.cpus = {best};
    }
    if (n.load_cpus.empty()) n.load_cpus = n.cpus;
    placed[i] = true;
    auto list = [](const std::vector<int>& cpus) {
      std::string out;
      for (int c : cpus) out += " " + std::to_string(c);
      return out;
    };
    // Say only what was computed: a node may set cpus and leave load_cpus to follow them.
    std::string line = "node " + n.name + ": ";
    if (cpus_written)
      line += "cpus" + list(n.cpus) + " as written, computed load_cpus" + list(n.load_cpus);
    else if (load_written)
      line += "computed cpus" + list(n.cpus) + ", load_cpus" + list(n.load_cpus) + " as written";
    else
      line += "computed cpus" + list(n.cpus) + ", load_cpus" + list(n.load_cpus);
    notes[i] = line;
  }
  std::erase(notes, std::string{});  // file order, placed nodes only
  return notes;
}

std::string cpu_users(const Plan& plan, int cpu) {
  std::string line;
  for (const auto& n : plan.nodes) {
    bool data = std::count(n.cpus.begin(), n.cpus.end(), cpu) > 0;
    bool load = std::count(n.load_cpus.begin(), n.load_cpus.end(), cpu) > 0;
    if (!data && !load) continue;
    if (!line.empty()) line += ", ";
    line += n.name + (!n.vpn         ? (load ? " (iperf3)" : " (routing only)")
                      : data && load ? " (daemon + iperf3)"
                      : data         ? " (daemon)"
                                     : " (iperf3)");
  }
  return line;
}

}  // namespace

std::vector<std::string> sender_receiver_sharing(const Plan& plan) {
  std::vector<std::string> out;
  if (!plan.pinned) return out;
  for (const auto& t : plan.tests) {
    const PlanNode& client = *plan.node(t.spec.client);
    for (const auto& server_name : t.spec.servers) {
      const PlanNode& server = *plan.node(server_name);
      for (const PlanNode* s : {&client, plan.node(client.vpn_node())})
        for (const PlanNode* r : {&server, plan.node(server.vpn_node())}) {
          std::vector<int> common;
          for (int c : s->cpus)
            if (on_cpu(*r, c)) common.push_back(c);
          for (int c : s->load_cpus)
            if (on_cpu(*r, c) && std::count(common.begin(), common.end(), c) == 0) common.push_back(c);
          if (common.empty()) continue;
          std::string line =
              "test '" + t.spec.name + "': sending node " + s->name + " and receiving node " + r->name + " share CPU";
          for (int c : common) line += " " + std::to_string(c);
          out.push_back(line +
                        ": one CPU does both ends' work, so speed and CPU-s/Gbit depend on that (more CPUs, or "
                        "cpus/load_cpus in the topology)");
        }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Default pinning, computed from the tests: a test's sending and receiving nodes on
// different CPUs whenever the CPU count allows; each node's daemon and its iperf3
// processes together on its CPU.
void plan_pinning(int cpu_count, bool no_pin, Plan* plan) {
  if (no_pin) {
    plan->pinned = false;
    for (auto& n : plan->nodes) n.cpus.clear(), n.load_cpus.clear();
    plan->pin_notes.push_back("nothing pinned (--no-pin): the scheduler places daemons, iperf3 and softirq work");
    return;
  }
  if (cpu_count <= 0) return;
  std::vector<std::string> computed = place_nodes(cpu_count, plan);
  for (int cpu = 0; cpu < cpu_count; ++cpu)
    if (std::string users = cpu_users(*plan, cpu); !users.empty())
      plan->pin_notes.push_back("CPU " + std::to_string(cpu) + ": " + users +
                                ", and the softirq work of packets received there");
  plan->pin_notes.push_back(
      plan->rps ? "receive packet steering: each node's interfaces hand received packets to the node's cpus"
                : "receive packet steering off ([bench] rps = false): softirq runs where packets arrive");
  for (const auto& line : computed) plan->pin_notes.push_back(line + " (not set in the topology)");
  plan->pin_warnings = sender_receiver_sharing(*plan);
}

}  // namespace vpnlab
