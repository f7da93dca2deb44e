// [[variant]]: a setup every VPN node gets once its lab is built and before any product
// starts — nftables rules, sysctls, underlay offloads — so "the same comparison with and
// without X" is one run (`[bench] sweep = { variant = ["none", "x"] }`). Read before
// [bench], whose sweep names them; a variant no sweep names is an error (it would measure
// nothing and say nothing).
#include <algorithm>

#include "lab/base/nft_text.h"
#include "lab/model/names.h"
#include "lab/model/topology_parse.h"

namespace vpnlab {

namespace {

constexpr size_t kMaxVariantName = 16;  // the name ends every test name at its points

Status parse_nft(const TomlReader& r, const toml::node& nft, const std::string& what, VariantSpec* v) {
  const char* hint = "write nft = \"\"\"table inet vpnlab_variant { chain input { type filter hook input priority 0; ct state established counter accept } }\"\"\"";
  if (!nft.is_string() || nft.as_string()->get().find_first_not_of(" \t\r\n") == std::string::npos)
    return r.at(nft, what + ": 'nft' is the nftables rules as text", hint);
  v->nft = nft.as_string()->get();
  v->nft_pos = pos_of(nft);
  if (v->nft.size() > kMaxVariantRules)
    return r.at(nft, what + ": 'nft' has " + std::to_string(v->nft.size()) + " bytes; at most " + std::to_string(kMaxVariantRules), "a variant is a few rules");
  if (std::string why = nft_ruleset_refusal(v->nft); !why.empty()) return r.at(nft, what + ": " + why, "write the rules themselves into nft");
  // The counters are how the run sees that a rule fired: without one nothing is seen.
  if (!nft_has_word(v->nft, "counter"))
    return r.at(nft, what + ": the rules have no 'counter'", "add 'counter' to the rule that matters: the run reads it after each sample and flags a rule that matched nothing");
  return ok_status();
}

}  // namespace

Status parse_variants(const TomlReader& r, const toml::table& root, Topology* topo) {
  return for_each_table(r, root, "variant", [&](const toml::table& t) -> Status {
    VariantSpec v;
    v.pos = pos_of(t);
    if (auto s = r.only_keys(t, "variant", {"name", "nft", "sysctl", "offloads"}); !s) return s;
    if (auto s = get_string(r, t, "name", "variant", &v.name, true, v.pos); !s) return s;
    const toml::node& name = *t.get("name");
    if (auto s = check_name(r, pos_of(name), "variant", v.name, kMaxVariantName); !s) return s;
    const std::string what = "variant '" + v.name + "'";
    if (v.name == "none") return r.at(name, what + ": 'none' is the sweep's point without a variant", "give the variant another name");
    for (const auto& other : topo->variants)
      if (other.name == v.name) return r.at(name, what + " is defined twice", "give every variant a unique name");
    if (topo->backend != "netns")
      return r.at(t, what + ": variants are applied in the nodes' namespaces on the netns backend, not on '" + topo->backend + "'",
                  "run the variant sweep with backend = \"netns\"");
    if (const toml::node* nft = t.get("nft"))
      if (auto s = parse_nft(r, *nft, what, &v); !s) return s;
    if (const toml::node* sysctl = t.get("sysctl"))
      if (auto s = parse_net_sysctls(r, *sysctl, what, &v.sysctls); !s) return s;
    if (t.get("offloads")) {
      bool on = true;
      if (auto s = get_bool(r, t, "offloads", what, &on); !s) return s;
      v.offloads = on;
    }
    if (v.nft.empty() && v.sysctls.empty() && !v.offloads)
      return r.at(t, what + " sets nothing", "give it nft rules, sysctl = { ... } or offloads = false");
    topo->variants.push_back(std::move(v));
    return ok_status();
  }, "", "write [[variant]] with name = \"...\" and nft, sysctl or offloads");
}

Status check_variants_swept(const TomlReader& r, const Topology& topo) {
  for (const auto& v : topo.variants) {
    const bool swept = std::any_of(topo.bench.lab_points.begin(), topo.bench.lab_points.end(), [&](const LabPoint& p) { return p.variant == v.name; });
    if (!swept)
      return r.at(v.pos, "variant '" + v.name + "' is defined but no sweep names it",
                  "add sweep = { variant = [\"none\", \"" + v.name + "\"] } to [bench], or remove the variant");
  }
  return ok_status();
}

}  // namespace vpnlab
