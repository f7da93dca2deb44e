// A product's run-scoped services on the topology: one namespace per service (per service
// and hop on a chained plan), one veth pair from it to each VPN node it serves (plan.h,
// plan_with_services).
#include <algorithm>
#include <map>

#include "lab/model/plan.h"

namespace vpnlab {

namespace {

std::string control_link(const std::string& service, const std::string& node) { return "ctl-" + service + "-" + node; }

// The first /24 of 172.31.0.0/16 (private, so control clients speak plain HTTP to it)
// that no subnet of the plan touches.
Result<Ipv4Prefix> free_control_subnet(const Plan& plan, int taken) {
  std::vector<Ipv4Prefix> used = {plan.overlay_subnet};
  for (const auto& n : plan.nodes) {
    for (const auto& u : n.underlay)
      used.push_back(
          Ipv4Prefix{Ipv4Addr{u.addr.addr.value & (u.addr.prefix_len == 0 ? 0u : ~0u << (32 - u.addr.prefix_len))},
                     u.addr.prefix_len});
    for (const auto& s : n.sites) used.push_back(s);
  }
  for (uint32_t third = 77; third < 77 + 256; ++third) {
    Ipv4Prefix candidate{Ipv4Addr{(172u << 24) | (31u << 16) | ((third % 256) << 8)}, 24};
    if (std::none_of(used.begin(), used.end(), [&](const Ipv4Prefix& p) { return p.overlaps(candidate); }) &&
        taken-- == 0)
      return candidate;
  }
  return make_error("no free /24 in 172.31.0.0/16 for a control network", "the topology's subnets cover it: move one");
}

}  // namespace

std::string service_node_name(const std::string& service, const PlanHop* hop) {
  return "svc-" + service + (hop ? "-" + hop->chain + "-" + std::to_string(hop->index) : "");
}

namespace {

// The VPN nodes one service node serves. On a chained plan each hop is an overlay of its
// own, numbered from its own /29: a control server that hands out addresses (headscale)
// must see only that hop's nodes and that subnet, so each hop gets its own.
struct ServedGroup {
  const PlanHop* hop = nullptr;  // null: the whole plan
  std::vector<const PlanNode*> nodes;
};

Result<std::vector<ServedGroup>> served_groups(const Plan& plan) {
  if (!plan.chained()) return std::vector<ServedGroup>{{nullptr, plan.vpn_nodes()}};
  std::vector<ServedGroup> out;
  std::map<std::string, std::string> hop_of;
  for (const PlanHop& hop : plan.hops) {
    ServedGroup g{&hop, {}};
    for (const auto& name : hop.nodes()) {
      const std::string here = hop.chain + " hop " + std::to_string(hop.index);
      if (auto [it, fresh] = hop_of.emplace(name, here); !fresh)
        return make_error("node '" + name + "' is in " + it->second + " and " + here +
                              ": a product's control service serves each node in one hop only",
                          "run this product on a chain whose hops share no node (relay = \"native\"), or leave it out");
      g.nodes.push_back(plan.node(name));
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

Result<Plan> plan_with_services(const Plan& plan, const std::vector<std::string>& services) {
  Plan out = plan;
  auto groups = served_groups(plan);
  if (!groups) return groups.error();
  int taken = 0;
  for (const std::string& service : services) {
    for (const ServedGroup& group : *groups) {
      const std::vector<const PlanNode*>& vpn = group.nodes;
      if (vpn.size() > 63)
        return make_error("a control service reaches at most 63 VPN nodes (one /30 each in a /24)",
                          "use a smaller mesh");
      auto subnet = free_control_subnet(plan, taken++);
      if (!subnet) return subnet.error();
      PlanNode svc;
      svc.name = service_node_name(service, group.hop);
      if (plan.node(svc.name))
        return make_error("node '" + svc.name + "' is in the topology: it is the name of a product's service",
                          "rename the node");
      svc.ns = plan.ns_prefix + "s-" + svc.name.substr(4);
      svc.vpn = false;
      svc.service = true;
      for (size_t i = 0; i < vpn.size(); ++i) {
        HostAddr service_end{*subnet->host(4 * i + 1), 30}, node_end{*subnet->host(4 * i + 2), 30};
        PlanVeth v;
        v.link = control_link(service, vpn[i]->name);
        v.ns_a = vpn[i]->ns;
        v.if_a = "ctl-" + service.substr(0, 11);
        v.addr_a = node_end;
        v.ns_b = svc.ns;
        v.if_b = "ctl" + std::to_string(i);
        v.addr_b = service_end;
        out.veths.push_back(v);
        svc.underlay.push_back({v.link, v.if_b, service_end});
        for (auto& n : out.nodes)
          if (n.name == vpn[i]->name) n.underlay.push_back({v.link, v.if_a, node_end});
        // The whole control subnet through the node's own link: every node reaches the
        // service at one address (its first link's), and the service forwards nothing, so no
        // node reaches another this way.
        out.routes.push_back(PlanRoute{vpn[i]->name, *subnet, service_end.addr, PlanRoute::When::always});
      }
      if (group.hop)
        for (const auto& relay : group.hop->relays)
          for (const auto& u : plan.node(relay)->underlay)
            if (u.carrier) svc.served_relays.emplace_back(relay, u.addr.addr);
      out.nodes.push_back(std::move(svc));
    }
  }
  return out;
}

std::string service_address(const Plan& plan, const std::string& service, const std::string& node) {
  if (!plan.node(node)) return "";
  for (const PlanNode& n : plan.nodes)
    if (n.service && !n.underlay.empty())
      for (const auto& u : n.underlay)
        if (u.link == control_link(service, node)) return n.underlay.front().addr.addr.str();
  return "";
}

}  // namespace vpnlab
