#include "lab/run/variant.h"

namespace vpnlab {

namespace {

// Rules whose counters nft does not list cannot show that they fired.
Status apply_nft(const VariantSpec& v, const PlanNode& node, NodeRuntime& nodes) {
  if (auto s = nodes.apply_nftables(node.name, v.nft); !s) return s;
  auto counted = nodes.variant_packets(node.name);
  if (!counted) return counted.error();
  if (counted->counters == 0)
    return make_error("nft lists no counter in the tables the rules made",
                      "put 'counter' in a rule of the variant's own table: it is read after every sample");
  return ok_status();
}

Status apply_offloads(const VariantSpec& v, const PlanNode& node, NodeRuntime& nodes) {
  for (const auto& u : node.underlay)
    if (auto s = nodes.set_offloads(node.name, u.ifname, *v.offloads); !s) return s;
  return ok_status();
}

Status apply_qdisc(const VariantSpec& v, const PlanNode& node, NodeRuntime& nodes) {
  for (const auto& u : node.underlay)
    if (auto s = nodes.set_root_qdisc(node.name, u.ifname, v.qdisc); !s) return s;
  return ok_status();
}

nlohmann::json sysctl_json(const VariantSpec& v) {
  nlohmann::json sysctl = nlohmann::json::object();
  for (const auto& [key, value] : v.sysctls) sysctl[key] = value;
  return sysctl;
}

}  // namespace

// In the order they are applied: sysctls, offloads and the qdisc before the rules, whose
// counters are read last.
const std::vector<VariantApplier>& variant_appliers() {
  static const std::vector<VariantApplier> appliers = {
      {"sysctl", [](const VariantSpec& v) { return !v.sysctls.empty(); },
       [](const VariantSpec& v, const PlanNode& node, NodeRuntime& nodes) {
         return nodes.set_sysctls(node.name, v.sysctls);
       },
       sysctl_json},
      {"offloads", [](const VariantSpec& v) { return v.offloads.has_value(); }, apply_offloads,
       [](const VariantSpec& v) { return v.offloads ? nlohmann::json(*v.offloads) : nlohmann::json(); }},
      {"qdisc", [](const VariantSpec& v) { return !v.qdisc.empty(); }, apply_qdisc,
       [](const VariantSpec& v) { return v.qdisc.empty() ? nlohmann::json() : nlohmann::json(v.qdisc); }},
      {"nft", [](const VariantSpec& v) { return !v.nft.empty(); }, apply_nft,
       [](const VariantSpec& v) { return nlohmann::json(v.nft); }},
  };
  return appliers;
}

Status apply_variant(const Plan& plan, NodeRuntime& nodes) {
  if (!plan.variant) return ok_status();
  const VariantSpec& v = *plan.variant;
  for (const PlanNode* node : plan.vpn_nodes())
    for (const auto& a : variant_appliers())
      if (a.is_set(v))
        if (auto s = a.apply(v, *node, nodes); !s)
          return with_context(s.error(), "variant '" + v.name + "': node '" + node->name + "'");
  return ok_status();
}

nlohmann::json variant_json(const VariantSpec& v) {
  nlohmann::json out = {{"name", v.name}};
  for (const auto& a : variant_appliers()) out[a.key] = a.record(v);
  return out;
}

Result<int64_t> variant_packets(const Plan& plan, NodeRuntime& nodes) {
  if (!plan.variant || plan.variant->nft.empty()) return int64_t{-1};
  int64_t total = 0;
  for (const PlanNode* node : plan.vpn_nodes()) {
    auto counted = nodes.variant_packets(node->name);
    if (!counted)
      return with_context(counted.error(), "variant '" + plan.variant->name + "': node '" + node->name + "'");
    total += static_cast<int64_t>(counted->packets);
  }
  return total;
}

std::string variant_verdict(const Plan& plan, int64_t counted) {
  if (counted != 0 || !plan.variant) return "";
  return "variant '" + plan.variant->name +
         "': its nftables rules matched no packet during the sample (a rule that never fired measured nothing)";
}

}  // namespace vpnlab
