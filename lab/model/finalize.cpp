#include "lab/model/finalize.h"

#include <algorithm>

#include "lab/model/sweep.h"

namespace vpnlab {

int underlay_mtu(const Plan& plan) {
  int underlay = 65535;
  for (const auto& v : plan.veths) underlay = std::min(underlay, v.mtu);
  return underlay;
}

void resolve_overlay_mtu(Plan* plan, const std::vector<ProductSpec>& specs, std::string* limited_by) {
  if (plan->overlay_mtu > 0) return;
  int mtu = underlay_mtu(*plan);
  std::string by = "the underlay";
  for (const auto& spec : specs) {
    int carried = carried_mtu(spec, underlay_mtu(*plan));
    if (carried < mtu) {
      mtu = carried;
      by = spec.name;
    }
  }
  plan->overlay_mtu = mtu;
  if (limited_by) *limited_by = by;
}

std::string hop_out_of_reach(const ProductSpec& spec, const PlanHop& hop) {
  if (!spec.tunnel || hop.relays.empty() || std::count(spec.shapes.begin(), spec.shapes.end(), "relay")) return "";
  return "product '" + spec.name + "' declares no relay that vpnlab can put on chain '" + hop.chain +
         "' (topology = [\"relay\"] in its product.toml)";
}

std::map<std::string, std::string> tests_out_of_reach(const ProductSpec& spec, const Plan& plan) {
  std::map<std::string, std::string> out;
  for (const auto& t : plan.tests) {
    const std::string& from = plan.node(t.spec.client)->vpn_node();
    for (const auto& server : t.spec.servers)
      for (const PlanHop* hop : plan.hops_between(from, plan.node(server)->vpn_node()))
        if (auto why = hop_out_of_reach(spec, *hop); !why.empty() && !out.count(t.spec.name)) out[t.spec.name] = why;
  }
  return out;
}

Status check_product_fits(const ProductSpec& spec, const Plan& plan) {
  if (!spec.tunnel) return ok_status();
  auto declares = [&](const std::string& shape) {
    return std::find(spec.shapes.begin(), spec.shapes.end(), shape) != spec.shapes.end();
  };
  // A chain of one hop with no site behind it is a p2p overlay: its two ends are tested
  // between themselves, and any product that carries p2p can run it.
  auto just_p2p = [&](const PlanHop& h) {
    return h.relays.empty() && h.sites_a.empty() && h.sites_b.empty() &&
           std::count_if(plan.hops.begin(), plan.hops.end(), [&](const PlanHop& o) { return o.chain == h.chain; }) == 1;
  };
  auto any_hop = [&](bool native) {
    return std::any_of(plan.hops.begin(), plan.hops.end(),
                       [&](const PlanHop& h) { return h.relays.empty() != native && !just_p2p(h); });
  };
  const bool some_test_in_reach = tests_out_of_reach(spec, plan).size() < plan.tests.size();
  if (any_hop(true) && !declares("relay") && !some_test_in_reach)
    return make_error("product '" + spec.name +
                          "' has no relay of its own (topology = [\"relay\"] in its product.toml) for a chain with "
                          "relay = \"native\"",
                      "leave it out of this run, or make the chain a tunnel per hop (relay = \"hops\")");
  if (any_hop(false) && !declares("chain"))
    return make_error(
        "product '" + spec.name +
            "' is not declared to relay along a chain of hops (topology = [\"chain\"] in its product.toml)",
        "leave it out of this run: a relay must forward what one hop's tunnel delivers into the next, with other "
        "sites' subnets allowed");
  // On chains every hop is a p2p overlay of its own: the shapes above say all there is, but
  // for sites behind a native relay's ends (routed by the product) and for one-hop chains.
  size_t vpn_count = plan.vpn_nodes().size();
  std::vector<std::string> needed;
  if (!plan.chained()) needed.push_back(overlay_shape(vpn_count));
  if (std::any_of(plan.hops.begin(), plan.hops.end(), just_p2p)) needed.push_back("p2p");
  if (std::any_of(plan.hops.begin(), plan.hops.end(),
                  [](const PlanHop& h) { return !h.relays.empty() && (!h.sites_a.empty() || !h.sites_b.empty()); }))
    needed.push_back("site-to-site");
  if (!plan.chained() && vpn_count < plan.nodes.size())
    needed.push_back("site-to-site");  // some node reaches the overlay through a gateway
  for (const auto& shape : needed)
    if (!declares(shape))
      return make_error(
          "product '" + spec.name + "' does not carry a " + shape + " overlay" +
              (plan.chained() ? "" : " of " + std::to_string(vpn_count) + " VPN nodes") + " (it supports: " +
              [&] {
                std::string all;
                for (const auto& s : spec.shapes) all += (all.empty() ? "" : ", ") + s;
                return all;
              }() +
              ")",
          "leave it out of this run, or use a topology of that shape");
  int underlay = underlay_mtu(plan);
  int carried = carried_mtu(spec, underlay);
  if (plan.overlay_mtu > carried)
    return make_error("overlay MTU " + std::to_string(plan.overlay_mtu) + " is more than product '" + spec.name +
                          "' carries (" + std::to_string(carried) + " over a " + std::to_string(underlay) +
                          "-byte underlay)",
                      "set [overlay] mtu = " + std::to_string(carried) + " or lower: every product gets the same MTU");
  return ok_status();
}

namespace {

// The [bench] sweep's points, each finalized as a plan of its own: every product fits the
// point's underlay, and an "auto" overlay MTU follows it (kept once resolved: the runner
// finalizes the CLI's plan again).
Status finalize_lab_points(Plan* plan, const std::vector<ProductSpec>& specs, bool automatic) {
  if (!plan->lab_points.empty() && !backend_traits(plan->backend).lab_sweeps)
    return make_error(plan->topology_file + ": a [bench] sweep rebuilds the lab between points; the " + plan->backend +
                          " backend's links are the hosts' own",
                      "sweep on the " + backends_with(&BackendTraits::lab_sweeps) + " backend");
  for (size_t i = 0; i < plan->lab_points.size(); ++i) {
    Plan point = plan->at_lab_point(i);
    if (automatic && plan->lab_points[i].overlay_mtu == 0) point.overlay_mtu = 0;
    if (auto s = finalize_plan(&point, specs); !s)
      return with_context(s.error(),
                          plan->topology_file + ": [bench] sweep point " + point_text(plan->lab_points[i].values));
    plan->lab_points[i].overlay_mtu = point.overlay_mtu;
  }
  return ok_status();
}

}  // namespace

Status finalize_plan(Plan* plan, const std::vector<ProductSpec>& specs, std::string* limited_by) {
  const bool automatic = plan->overlay_mtu == 0;
  resolve_overlay_mtu(plan, specs, limited_by);
  for (const auto& spec : specs)
    if (auto s = check_product_fits(spec, *plan); !s) return s;
  if (auto s = finalize_lab_points(plan, specs, automatic); !s) return s;
  // A set MTU was checked against the tests when the topology was read; an automatic one is
  // known only now.
  if (!automatic) return ok_status();
  const int mtu = plan->overlay_mtu;
  for (const auto& t : plan->tests) {
    if (t.spec.mss && *t.spec.mss > max_tcp_mss(mtu))
      return make_error("test '" + t.spec.name + "': mss " + std::to_string(*t.spec.mss) +
                            " does not fit the automatic overlay MTU " + std::to_string(mtu),
                        "use at most " + std::to_string(max_tcp_mss(mtu)));
    if (t.spec.udp && t.spec.length > max_udp_payload(mtu))
      return make_error(
          plan->topology_file + ": test '" + t.spec.name + "': length " + std::to_string(t.spec.length) +
              " does not fit the overlay MTU " + std::to_string(mtu) + " the products resolved to",
          "use length <= " + std::to_string(max_udp_payload(mtu)) + ", or leave it out (MTU - 28 is the default)");
  }
  return ok_status();
}

}  // namespace vpnlab
