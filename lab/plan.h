// The plan: everything a run will create and do, computed from the topology alone.
// Pure (no syscalls), so `vpnlab plan` works without root and is unit-testable.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/ipv4.h"
#include "lab/topology.h"

namespace vpnlab {

// Every object the lab creates starts with this, so cleanup finds it and nothing else.
inline constexpr const char* kLabPrefix = "vpnlab-";

struct HostAddr {
  Ipv4Addr addr;
  int prefix_len = 0;
  std::string str() const { return addr.str() + "/" + std::to_string(prefix_len); }
};

// One veth pair. End A always lives in a node namespace; end B is in the peer node's
// namespace (two-node link) or in the link's bridge namespace, enslaved to its bridge.
struct PlanVeth {
  std::string link;
  std::string ns_a, if_a;
  std::optional<HostAddr> addr_a;
  std::string ns_b, if_b;
  std::optional<HostAddr> addr_b;
  std::string master_b;  // bridge name in ns_b, empty for a node-to-node pair
  int mtu = 1500;
};

struct PlanBridge {
  std::string link;
  std::string ns;
  std::string name = "br0";
  int mtu = 1500;
};

struct PlanNode {
  std::string name;
  std::string ns;
  HostAddr overlay;
  std::vector<int> cpus;
  std::vector<int> load_cpus;
  struct Underlay {
    std::string link;
    std::string ifname;
    HostAddr addr;
  };
  std::vector<Underlay> underlay;
};

struct PlanTest {
  TestSpec spec;
  std::string underlay_link;  // the link client and server share (baseline traffic crosses it)
};

struct Plan {
  std::string run_id;
  std::string lab;
  std::string ns_prefix;  // "vpnlab-<lab>-<tag>-"
  std::string topology_file;
  Ipv4Prefix overlay_subnet;
  int overlay_mtu = 1400;
  int overlay_port = 51820;
  std::vector<PlanNode> nodes;
  std::vector<PlanBridge> bridges;
  std::vector<PlanVeth> veths;
  std::vector<std::string> products;
  std::vector<PlanTest> tests;
  int samples = 10;
  double duration_s = 10;
  double warmup_s = 2;

  const PlanNode* node(const std::string& name) const;
  // All namespaces in creation order: bridges first (veths are created into them), then nodes.
  std::vector<std::string> namespaces() const;
  // The server's address on the link it shares with the client.
  Ipv4Addr underlay_address(const std::string& node, const std::string& link) const;
  // Estimated wall time of `run` in seconds (bring-up and teardown excluded).
  double estimated_seconds() const;
};

struct PlanOptions {
  std::string run_id;   // results/<run_id>/
  std::string tag;      // short unique part of namespace names
  std::vector<std::string> products;  // overrides [bench] products when non-empty
  std::optional<int> samples;
  std::optional<double> duration_s;
  int cpu_count = 0;    // 0: do not check CPU numbers
};

Result<Plan> make_plan(const Topology& topo, const PlanOptions& opts);

// Human-readable listing of a plan (for `vpnlab plan`).
std::string describe_plan(const Plan& plan);

}  // namespace vpnlab
