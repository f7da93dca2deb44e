// Where a plan meets its products, once: "auto" MTU resolved to what every product carries,
// each product checked against the overlay's shape and MTU, and each test's packet sizes
// checked against the MTU that resulted. The CLI finalises a plan before it shows or runs
// it; the runner takes the plan as finished.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"

namespace vpnlab {

// Resolves and checks `plan` for `specs` (the plan's products, in order). For an "auto"
// MTU, *limited_by names what limited it ("the underlay" or a product).
Status finalize_plan(Plan* plan, const std::vector<ProductSpec>& specs, std::string* limited_by = nullptr);

// Whether a product can carry this plan's overlay (its shape and MTU). A product without a
// relay of its own fits a plan with a native relay chain if some test does not cross it.
Status check_product_fits(const ProductSpec& spec, const Plan& plan);

// Why `spec` cannot carry hop `hop` of the plan ("" = it can): a native relay chain needs
// a relay of the product's own.
std::string hop_out_of_reach(const ProductSpec& spec, const PlanHop& hop);

// The plan's tests `spec` cannot run, by name, each with its reason: those that cross a hop
// out of its reach. The runner keeps a row for each of their samples, with the reason.
std::map<std::string, std::string> tests_out_of_reach(const ProductSpec& spec, const Plan& plan);

// For mtu = "auto" (plan.overlay_mtu == 0): the largest overlay MTU every product carries
// over the plan's underlay, and which product limits it. A set MTU is left alone.
void resolve_overlay_mtu(Plan* plan, const std::vector<ProductSpec>& specs, std::string* limited_by = nullptr);

// Smallest MTU of the plan's underlay links.
int underlay_mtu(const Plan& plan);

}  // namespace vpnlab
