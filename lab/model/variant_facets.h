// What a [[variant]] can set, one entry per facet: its key in the file, how it is read and
// how the plan describes it. How a facet is applied to a node and recorded in
// environment.json is lab/run/variant.cpp's entry of the same key. A new facet: its field in
// VariantSpec (topology.h), its entry here, its entry there (and the node operation it
// needs, if NodeRuntime has none yet).
#pragma once
#include <string>
#include <vector>

#include "lab/model/toml_reader.h"
#include "lab/model/topology.h"

namespace vpnlab {

struct VariantFacet {
  const char* key;
  // Reads t[key] (present) into *v; `what` names the variant in messages; the topology so
  // far (its links are read) for checks against it.
  Status (*parse)(const TomlReader& r, const toml::table& t, const std::string& what, const Topology& topo,
                  VariantSpec* v);
  // " nftables rules (3 lines; ...)", " underlay offloads off": what the plan says of it; "" when not set.
  std::string (*describe)(const VariantSpec& v);
};

const std::vector<VariantFacet>& variant_facets();

// The root qdiscs a variant may put on the underlay: those that need no parameters.
const std::vector<std::string>& variant_qdisc_kinds();

}  // namespace vpnlab
