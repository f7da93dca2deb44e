// A mesh-scale file (`vpnlab scale FILE`): which mesh sizes and products to bring up, and
// the mesh of each size as an ordinary topology — N nodes on one bridge, every node a VPN
// peer of every other, one test from the first node to the last. Pure: no syscalls.
#pragma once
#include <string>
#include <vector>

#include "lab/base/ipv4.h"
#include "lab/base/result.h"

namespace vpnlab {

inline constexpr int kMaxScaleNodes = 250;

struct ScaleSpec {
  std::string file;
  std::string lab_name;
  std::vector<int> sizes;  // nodes per mesh, as written
  std::vector<std::string> products;
  Ipv4Prefix overlay, underlay;
  int mtu = 1400, port = 51820;
  double converge_timeout_s = 120;  // per mesh and product
  double duration_s = 5;            // the throughput sample while the mesh is up
};

// Errors name file:line:column with a hint, as the topology parser's do.
Result<ScaleSpec> parse_scale_text(const std::string& text, const std::string& file);
Result<ScaleSpec> load_scale_spec(const std::string& path);

// The mesh of `nodes` nodes (n1 .. nN) as topology TOML, for the topology parser and planner.
std::string mesh_topology_text(const ScaleSpec& spec, int nodes);

}  // namespace vpnlab
