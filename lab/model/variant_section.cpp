// [[variant]]: a setup every VPN node gets once its lab is built and before any product
// starts (nftables rules, sysctls, underlay offloads, the underlay qdisc: each a facet,
// lab/model/variant_facets.h), so "the same comparison with and without X" is one run
// (`[bench] sweep = { variant = ["none", "x"] }`). Read before [bench], whose sweep names
// them; a variant no sweep names is an error (it would measure nothing and say nothing).
#include <algorithm>

#include "lab/model/names.h"
#include "lab/model/topology_parse.h"
#include "lab/model/variant_facets.h"

namespace vpnlab {

namespace {

constexpr size_t kMaxVariantName = 16;  // the name ends every test name at its points

}  // namespace

Status parse_variants(const TomlReader& r, const toml::table& root, Topology* topo) {
  return for_each_table(
      r, root, "variant",
      [&](const toml::table& t) -> Status {
        VariantSpec v;
        v.pos = pos_of(t);
        std::vector<std::string> keys{"name"};
        for (const auto& f : variant_facets()) keys.push_back(f.key);
        if (auto s = r.only_keys(t, "variant", keys); !s) return s;
        if (auto s = get_string(r, t, "name", "variant", &v.name, true, v.pos); !s) return s;
        const toml::node& name = *t.get("name");
        if (auto s = check_name(r, pos_of(name), "variant", v.name, kMaxVariantName); !s) return s;
        const std::string what = "variant '" + v.name + "'";
        if (v.name == "none")
          return r.at(name, what + ": 'none' is the sweep's point without a variant", "give the variant another name");
        for (const auto& other : topo->variants)
          if (other.name == v.name) return r.at(name, what + " is defined twice", "give every variant a unique name");
        if (!backend_traits(topo->backend).variants)
          return r.at(t,
                      what + ": variants are applied in the nodes' namespaces on the " +
                          backends_with(&BackendTraits::variants) + " backend, not on '" + topo->backend + "'",
                      "run the variant sweep with backend = \"" + backends_with(&BackendTraits::variants) + "\"");
        bool sets_something = false;
        for (const auto& f : variant_facets()) {
          if (!t.get(f.key)) continue;
          if (auto s = f.parse(r, t, what, *topo, &v); !s) return s;
          sets_something = sets_something || !f.describe(v).empty();
        }
        if (!sets_something)
          return r.at(t, what + " sets nothing",
                      "give it nft rules, sysctl = { ... }, offloads = false or qdisc = \"fq_codel\"");
        topo->variants.push_back(std::move(v));
        return ok_status();
      },
      "", "write [[variant]] with name = \"...\" and nft, sysctl, offloads or qdisc");
}

Status check_variants_swept(const TomlReader& r, const Topology& topo) {
  for (const auto& v : topo.variants) {
    const bool swept = std::any_of(topo.bench.lab_points.begin(), topo.bench.lab_points.end(),
                                   [&](const LabPoint& p) { return p.variant == v.name; });
    if (!swept)
      return r.at(v.pos, "variant '" + v.name + "' is defined but no sweep names it",
                  "add sweep = { variant = [\"none\", \"" + v.name + "\"] } to [bench], or remove the variant");
  }
  return ok_status();
}

}  // namespace vpnlab
