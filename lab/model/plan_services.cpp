// A product's run-scoped services on the topology: one namespace per service, one veth pair
// from it to each VPN node (plan.h, plan_with_services).
#include <algorithm>

#include "lab/model/plan.h"

namespace vpnlab {

namespace {

std::string control_link(const std::string& service, const std::string& node) { return "ctl-" + service + "-" + node; }

// The first /24 of 172.31.0.0/16 (private, so control clients speak plain HTTP to it)
// that no subnet of the plan touches.
Result<Ipv4Prefix> free_control_subnet(const Plan& plan, int taken) {
  std::vector<Ipv4Prefix> used = {plan.overlay_subnet};
  for (const auto& n : plan.nodes) {
    for (const auto& u : n.underlay) used.push_back(Ipv4Prefix{Ipv4Addr{u.addr.addr.value & (u.addr.prefix_len == 0 ? 0u : ~0u << (32 - u.addr.prefix_len))}, u.addr.prefix_len});
    for (const auto& s : n.sites) used.push_back(s);
  }
  for (uint32_t third = 77; third < 77 + 256; ++third) {
    Ipv4Prefix candidate{Ipv4Addr{(172u << 24) | (31u << 16) | ((third % 256) << 8)}, 24};
    if (std::none_of(used.begin(), used.end(), [&](const Ipv4Prefix& p) { return p.overlaps(candidate); }) && taken-- == 0) return candidate;
  }
  return make_error("no free /24 in 172.31.0.0/16 for a control network", "the topology's subnets cover it: move one");
}

}  // namespace

std::string service_node_name(const std::string& service) { return "svc-" + service; }

Result<Plan> plan_with_services(const Plan& plan, const std::vector<std::string>& services) {
  Plan out = plan;
  const std::vector<const PlanNode*> vpn = plan.vpn_nodes();
  if (vpn.size() > 63) return make_error("a control service reaches at most 63 VPN nodes (one /30 each in a /24)", "use a smaller mesh");
  for (size_t k = 0; k < services.size(); ++k) {
    auto subnet = free_control_subnet(plan, static_cast<int>(k));
    if (!subnet) return subnet.error();
    PlanNode svc;
    svc.name = service_node_name(services[k]);
    if (plan.node(svc.name)) return make_error("node '" + svc.name + "' is in the topology: it is the name of a product's service", "rename the node");
    svc.ns = plan.ns_prefix + "s-" + services[k];
    svc.vpn = false;
    svc.service = true;
    for (size_t i = 0; i < vpn.size(); ++i) {
      const std::string link = control_link(services[k], vpn[i]->name);
      HostAddr service_end{*subnet->host(4 * i + 1), 30}, node_end{*subnet->host(4 * i + 2), 30};
      PlanVeth v;
      v.link = link;
      v.ns_a = vpn[i]->ns;
      v.if_a = "ctl-" + services[k].substr(0, 11);
      v.addr_a = node_end;
      v.ns_b = svc.ns;
      v.if_b = "ctl" + std::to_string(i);
      v.addr_b = service_end;
      out.veths.push_back(v);
      svc.underlay.push_back({link, v.if_b, service_end});
      for (auto& n : out.nodes)
        if (n.name == vpn[i]->name) n.underlay.push_back({link, v.if_a, node_end});
      // The whole control subnet through the node's own link: every node reaches the
      // service at one address (its first link's), and the service forwards nothing, so no
      // node reaches another this way.
      out.routes.push_back(PlanRoute{vpn[i]->name, *subnet, service_end.addr, PlanRoute::When::always});
    }
    out.nodes.push_back(std::move(svc));
  }
  return out;
}

std::string service_address(const Plan& plan, const std::string& service, const std::string& node) {
  const PlanNode* svc = plan.node(service_node_name(service));
  if (!svc || svc->underlay.empty() || !plan.node(node)) return "";
  return svc->underlay.front().addr.addr.str();
}

}  // namespace vpnlab
