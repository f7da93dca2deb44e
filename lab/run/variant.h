// A [[variant]] at work (lab/model/topology.h: VariantSpec): applied to every VPN node of a
// lab point once its lab is built and before the product starts, the same for every
// product and the baseline; its nftables counters read around each sample, so that a rule
// that matched no packet is seen (it measured nothing).
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/model/plan.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

// A facet of a variant at work (lab/model/variant_facets.h reads it): whether the variant
// sets it, how it is applied to one VPN node, and its value in environment.json's variants.
struct VariantApplier {
  const char* key;
  bool (*is_set)(const VariantSpec& v);
  Status (*apply)(const VariantSpec& v, const PlanNode& node, NodeRuntime& nodes);
  nlohmann::json (*record)(const VariantSpec& v);
};
const std::vector<VariantApplier>& variant_appliers();

// Every facet the variant sets, node by node; a failure names the variant and the node.
// Nothing when the plan has no variant.
Status apply_variant(const Plan& plan, NodeRuntime& nodes);

// {"name": ..., each facet's key: its value}, as environment.json records a variant.
nlohmann::json variant_json(const VariantSpec& v);

// The packets the variant's rules have counted on every VPN node so far; -1 when the plan's
// variant has no nftables rules (nothing to count).
Result<int64_t> variant_packets(const Plan& plan, NodeRuntime& nodes);

// A sample's verdict on the rules: "" when they matched packets (or there are none),
// otherwise why the row is not valid.
std::string variant_verdict(const Plan& plan, int64_t counted);

}  // namespace vpnlab
