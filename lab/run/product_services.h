// A product's run-scoped services ([[service]], product_spec.h): each a session of its own
// on its own node of the topology plan_with_services built, started before the product's
// nodes and stopped after them. What the nodes need from them (where they reach each
// service, what its steps captured) becomes the nodes' template values.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lab/run/product_session.h"

namespace vpnlab {

class ProductServices {
 public:
  using NodeValues = std::map<std::string, std::map<std::string, std::string>>;

  // `build_plan`: the plan the topology was built from (plan_with_services); `ctx`: the
  // product's session context (its VPN nodes, run directory, round). A service that does
  // not come up is an error naming it, with what started stopped again.
  static Result<std::unique_ptr<ProductServices>> start(const Plan& build_plan, const ProductSession::Context& ctx);
  ~ProductServices() { stop(); }

  // Per VPN node: NAME_address and NAME_VALUE for each value a step captured.
  const NodeValues& node_values() const { return values_; }
  void stop();  // the last started first

  // The service names of a spec, in file order (plan_with_services' argument).
  static std::vector<std::string> names(const ProductSpec& spec);
  // Renders every service's templates and the nodes' with stand-in values (validate).
  static Status check_templates(const ProductSpec& spec, const Plan& vpn_plan);

 private:
  ProductServices() = default;
  std::vector<std::unique_ptr<Plan>> plans_;
  std::vector<std::unique_ptr<ProductSpec>> specs_;
  std::vector<std::unique_ptr<ProductSession>> sessions_;
  NodeValues values_;
};

}  // namespace vpnlab
