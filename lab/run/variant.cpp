#include "lab/run/variant.h"

namespace vpnlab {

Status apply_variant(const Plan& plan, NodeRuntime& nodes) {
  if (!plan.variant) return ok_status();
  const VariantSpec& v = *plan.variant;
  for (const PlanNode* node : plan.vpn_nodes()) {
    const std::string where = "variant '" + v.name + "': node '" + node->name + "'";
    if (!v.sysctls.empty())
      if (auto s = nodes.set_sysctls(node->name, v.sysctls); !s) return with_context(s.error(), where);
    if (v.offloads)
      for (const auto& u : node->underlay)
        if (auto s = nodes.set_offloads(node->name, u.ifname, *v.offloads); !s) return with_context(s.error(), where);
    if (v.nft.empty()) continue;
    if (auto s = nodes.apply_nftables(node->name, v.nft); !s) return with_context(s.error(), where);
    // Rules whose counters nft does not list cannot show that they fired.
    auto counted = nodes.variant_packets(node->name);
    if (!counted) return with_context(counted.error(), where);
    if (counted->counters == 0)
      return make_error(where + ": nft lists no counter in the tables the rules made",
                        "put 'counter' in a rule of the variant's own table: it is read after every sample");
  }
  return ok_status();
}

Result<int64_t> variant_packets(const Plan& plan, NodeRuntime& nodes) {
  if (!plan.variant || plan.variant->nft.empty()) return int64_t{-1};
  int64_t total = 0;
  for (const PlanNode* node : plan.vpn_nodes()) {
    auto counted = nodes.variant_packets(node->name);
    if (!counted) return with_context(counted.error(), "variant '" + plan.variant->name + "': node '" + node->name + "'");
    total += static_cast<int64_t>(counted->packets);
  }
  return total;
}

std::string variant_verdict(const Plan& plan, int64_t counted) {
  if (counted != 0 || !plan.variant) return "";
  return "variant '" + plan.variant->name + "': its nftables rules matched no packet during the sample (a rule that never fired measured nothing)";
}

}  // namespace vpnlab
