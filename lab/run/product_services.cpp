#include "lab/run/product_services.h"

#include "lab/model/finalize.h"

namespace vpnlab {

namespace {

// A service as a session's spec: its files and steps. Its directories and logs are
// "PRODUCT-SERVICE" (tailscale-headscale), beside the product's: each bring-up of the
// product starts from a clean directory of its own, while the service runs.
ProductSpec service_spec(const ProductSpec& product, const ServiceSpec& svc) {
  ProductSpec s;
  s.name = product.name + "-" + svc.name;
  s.dir = product.dir;
  s.prepare = svc.prepare;
  s.steps = svc.steps;
  return s;
}

// The one-node plan a service's session runs on: the whole plan's overlay, or on a chained
// plan hop `hop`'s (its subnet and port: a control server numbers the hop's nodes from it).
Plan service_plan(const Plan& build_plan, const std::string& service, const PlanHop* hop) {
  Plan p = build_plan;
  p.nodes.clear();
  if (const PlanNode* n = build_plan.node(service_node_name(service, hop))) p.nodes.push_back(*n);
  if (hop) {
    p.overlay_subnet = hop->subnet;
    p.overlay_port = hop->port;
  }
  p.tests.clear();
  p.hops.clear();
  return p;
}

// The groups of nodes a service serves (plan_with_services): the whole plan, or each hop
// the product carries.
std::vector<const PlanHop*> served_hops(const ProductSpec& spec, const Plan& plan) {
  if (!plan.chained()) return {nullptr};
  std::vector<const PlanHop*> out;
  for (const PlanHop& hop : plan.hops)
    if (hop_out_of_reach(spec, hop).empty()) out.push_back(&hop);
  return out;
}

// The VPN nodes that reach a service through it: all, or the hop's ends and relays.
bool serves(const PlanHop* hop, const std::string& node) { return !hop || hop->has(node); }

// What a node's templates call a service's value: {{headscale_address}}, {{headscale_authkey}}.
std::string value_name(const ServiceSpec& svc, const std::string& key) { return svc.name + "_" + key; }

}  // namespace

std::vector<std::string> ProductServices::names(const ProductSpec& spec) {
  std::vector<std::string> out;
  for (const auto& s : spec.services) out.push_back(s.name);
  return out;
}

Result<std::unique_ptr<ProductServices>> ProductServices::start(const Plan& build_plan,
                                                                const ProductSession::Context& ctx) {
  std::unique_ptr<ProductServices> all(new ProductServices);
  for (const PlanHop* hop : served_hops(*ctx.spec, build_plan))
    for (const ServiceSpec& svc : ctx.spec->services) {
      all->plans_.push_back(std::make_unique<Plan>(service_plan(build_plan, svc.name, hop)));
      if (all->plans_.back()->nodes.empty())
        return make_error("service '" + svc.name + "' has no node in the topology", "build it with plan_with_services");
      all->specs_.push_back(std::make_unique<ProductSpec>(service_spec(*ctx.spec, svc)));
      ProductSession::Context sc = ctx;
      sc.plan = all->plans_.back().get();
      sc.spec = all->specs_.back().get();
      sc.instance = hop ? hop->chain + "-hop-" + std::to_string(hop->index) : "";
      sc.service = true;
      sc.node_values.clear();
      auto session = ProductSession::start(sc);
      if (!session) {
        all->stop();
        return with_context(session.error(),
                            ctx.spec->name + "'s service '" + svc.name + "'" +
                                (hop ? " for " + hop->chain + " hop " + std::to_string(hop->index) : ""));
      }
      const std::string svc_node = sc.plan->nodes.front().name;
      for (const PlanNode& node : ctx.plan->nodes) {
        if (!serves(hop, node.name)) continue;
        auto& v = all->values_[node.name];
        v[value_name(svc, "address")] = service_address(build_plan, svc.name, node.name);
        for (const auto& [k, value] : (*session)->captured(svc_node)) v[value_name(svc, k)] = value;
      }
      all->sessions_.push_back(std::move(session.value()));
    }
  return all;
}

void ProductServices::stop() {
  for (auto it = sessions_.rbegin(); it != sessions_.rend(); ++it) (*it)->stop();
  sessions_.clear();
}

Status ProductServices::check_templates(const ProductSpec& spec, const Plan& vpn_plan) {
  if (spec.services.empty()) return ProductSession::check_templates(spec, vpn_plan);
  auto build_plan = plan_with_services(vpn_plan, names(spec));
  if (!build_plan) return build_plan.error();
  NodeValues stand_ins;
  for (const PlanHop* hop : served_hops(spec, *build_plan))
    for (const ServiceSpec& svc : spec.services) {
      Plan sp = service_plan(*build_plan, svc.name, hop);
      if (auto s = ProductSession::check_templates(service_spec(spec, svc), sp); !s)
        return with_context(s.error(), "service '" + svc.name + "'");
      for (const PlanNode& node : vpn_plan.nodes) {
        if (!serves(hop, node.name)) continue;
        stand_ins[node.name][value_name(svc, "address")] = service_address(*build_plan, svc.name, node.name);
        for (const auto& step : svc.steps)
          for (const auto& [k, prefix] : step.capture) stand_ins[node.name][value_name(svc, k)] = "captured";
      }
    }
  return ProductSession::check_templates(spec, vpn_plan, stand_ins);
}

}  // namespace vpnlab
