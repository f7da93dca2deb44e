#include "lab/model/variant_facets.h"

#include <algorithm>

#include "lab/base/nft_text.h"
#include "lab/model/topology_parse.h"

namespace vpnlab {

namespace {

Status parse_nft(const TomlReader& r, const toml::table& t, const std::string& what, const Topology&, VariantSpec* v) {
  const toml::node& nft = *t.get("nft");
  const char* hint =
      "write nft = \"\"\"table inet vpnlab_variant { chain input { type filter hook input priority 0; ct state "
      "established counter accept } }\"\"\"";
  if (!nft.is_string() || nft.as_string()->get().find_first_not_of(" \t\r\n") == std::string::npos)
    return r.at(nft, what + ": 'nft' is the nftables rules as text", hint);
  v->nft = nft.as_string()->get();
  v->nft_pos = pos_of(nft);
  if (v->nft.size() > kMaxVariantRules)
    return r.at(
        nft,
        what + ": 'nft' has " + std::to_string(v->nft.size()) + " bytes; at most " + std::to_string(kMaxVariantRules),
        "a variant is a few rules");
  if (std::string why = nft_ruleset_refusal(v->nft); !why.empty())
    return r.at(nft, what + ": " + why, "write the rules themselves into nft");
  // The counters are how the run sees that a rule fired: without one nothing is seen.
  if (!nft_has_word(v->nft, "counter"))
    return r.at(nft, what + ": the rules have no 'counter'",
                "add 'counter' to the rule that matters: the run reads it after each sample and flags a rule that "
                "matched nothing");
  return ok_status();
}

std::string describe_nft(const VariantSpec& v) {
  if (v.nft.empty()) return "";
  return " nftables rules (" + std::to_string(std::count(v.nft.begin(), v.nft.end(), '\n') + 1) +
         " lines; their counters read after each sample)";
}

Status parse_sysctl(const TomlReader& r, const toml::table& t, const std::string& what, const Topology&,
                    VariantSpec* v) {
  return parse_net_sysctls(r, *t.get("sysctl"), what, &v->sysctls);
}

std::string describe_sysctl(const VariantSpec& v) {
  std::string out;
  for (const auto& [key, value] : v.sysctls) out += " " + key + "=" + value;
  return out;
}

Status parse_offloads(const TomlReader& r, const toml::table& t, const std::string& what, const Topology&,
                      VariantSpec* v) {
  bool on = true;
  if (auto s = get_bool(r, t, "offloads", what, &on); !s) return s;
  v->offloads = on;
  return ok_status();
}

std::string describe_offloads(const VariantSpec& v) {
  return v.offloads ? std::string(" underlay offloads ") + (*v.offloads ? "on" : "off") : "";
}

// The qdisc replaces the underlay's root qdisc: a link shaped by the file (rate: a TBF,
// delay/loss: netem) would lose its shaping, so the two are refused together.
Status parse_qdisc(const TomlReader& r, const toml::table& t, const std::string& what, const Topology& topo,
                   VariantSpec* v) {
  const toml::node& q = *t.get("qdisc");
  const auto& kinds = variant_qdisc_kinds();
  if (!q.is_string() || std::find(kinds.begin(), kinds.end(), q.as_string()->get()) == kinds.end())
    return r.at(q, what + ": 'qdisc' is one of " + TomlReader::join(kinds), "write qdisc = \"fq_codel\"");
  for (const auto& link : topo.links)
    if (link.rate_bps > 0 || link.delay_ms > 0 || link.jitter_ms > 0 || link.loss_pct > 0)
      return r.at(q, what + ": 'qdisc' replaces the underlay's root qdisc, which shapes link '" + link.name + "'",
                  "measure the qdisc on unshaped links, or shape without it");
  v->qdisc = q.as_string()->get();
  return ok_status();
}

std::string describe_qdisc(const VariantSpec& v) { return v.qdisc.empty() ? "" : " underlay qdisc " + v.qdisc; }

}  // namespace

const std::vector<VariantFacet>& variant_facets() {
  static const std::vector<VariantFacet> facets = {
      {"nft", parse_nft, describe_nft},
      {"sysctl", parse_sysctl, describe_sysctl},
      {"offloads", parse_offloads, describe_offloads},
      {"qdisc", parse_qdisc, describe_qdisc},
  };
  return facets;
}

const std::vector<std::string>& variant_qdisc_kinds() {
  static const std::vector<std::string> kinds = {"fq", "fq_codel", "cake", "sfq", "pfifo"};
  return kinds;
}

}  // namespace vpnlab
