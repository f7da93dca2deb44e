// A [[variant]] at work (lab/model/topology.h: VariantSpec): applied to every VPN node of a
// lab point once its lab is built and before the product starts, the same for every
// product and the baseline; its nftables counters read around each sample, so that a rule
// that matched no packet is seen (it measured nothing).
#pragma once
#include <cstdint>

#include "lab/model/plan.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

// Sysctls, underlay offloads, then nftables rules, node by node; a failure names the
// variant and the node. Nothing when the plan has no variant.
Status apply_variant(const Plan& plan, NodeRuntime& nodes);

// The packets the variant's rules have counted on every VPN node so far; -1 when the plan's
// variant has no nftables rules (nothing to count).
Result<int64_t> variant_packets(const Plan& plan, NodeRuntime& nodes);

// A sample's verdict on the rules: "" when they matched packets (or there are none),
// otherwise why the row is not valid.
std::string variant_verdict(const Plan& plan, int64_t counted);

}  // namespace vpnlab
