// Internal to the topology parser: helpers shared by its parts (nodes and links in
// topology.cpp, [bench] and its tests in topology_bench.cpp).
#pragma once
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "lab/model/toml_reader.h"
#include "lab/model/topology.h"

namespace vpnlab {

bool has_node(const Topology& topo, const std::string& name);
std::vector<std::string> node_names(const Topology& topo);
Status unknown_node(const TomlReader& r, SourcePos pos, const std::string& what, const std::string& name,
                    const Topology& topo);
// True when the node runs the VPN ([overlay] nodes, default all).
bool runs_vpn(const Topology& topo, const std::string& node);
// [[chain]] tables (after nodes and links): their nodes become the VPN nodes.
Status parse_chains(const TomlReader& r, const toml::table& root, Topology* topo);
Status parse_bench(const TomlReader& r, const toml::table& root, Topology* topo);
// [[variant]] tables (before [bench], whose sweep names them); after [bench], every
// variant must be a point of its sweep.
Status parse_variants(const TomlReader& r, const toml::table& root, Topology* topo);
Status check_variants_swept(const TomlReader& r, const Topology& topo);
// [[host]] tables (before the nodes, which name them).
Status parse_hosts(const TomlReader& r, const toml::table& root, Topology* topo);
// What the hosts backend can build: every node on a host, links across hosts of two nodes,
// one such link per host (its one NIC). Checked when the backend is "hosts".
Status check_hosts_layout(const Topology& topo);

}  // namespace vpnlab
