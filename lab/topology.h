// The topology file's model: plain structs filled from TOML, with the source position of
// every object so that later validation can point at the right line.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/ipv4.h"
#include "lab/result.h"

namespace vpnlab {

struct NodeSpec {
  std::string name;
  std::vector<int> cpus;       // VPN data-plane CPUs
  std::vector<int> load_cpus;  // iperf3 CPUs
  std::optional<std::string> gateway;
  SourcePos pos;
};

struct LinkSpec {
  std::string name;
  std::vector<std::string> nodes;
  Ipv4Prefix subnet;
  std::optional<int> mtu;
  std::optional<std::string> rate;
  SourcePos pos;
  SourcePos nodes_pos;
};

struct TestSpec {
  std::string name;
  std::string client;
  std::vector<std::string> servers;
  int streams = 1;
  bool reverse = false;
  std::optional<int> mss;
  SourcePos pos;
};

struct BenchSpec {
  std::vector<std::string> products{"baseline"};
  SourcePos products_pos;
  int samples = 10;
  double duration_s = 10;
  double warmup_s = 2;
  std::vector<TestSpec> tests;
};

struct Topology {
  std::string file;  // as given by the user, for messages
  std::string lab_name;
  std::string backend = "netns";
  Ipv4Prefix overlay_subnet;
  int overlay_mtu = 1400;  // 0 = "auto", resolved once the products are known
  int overlay_port = 51820;
  std::vector<NodeSpec> nodes;
  std::vector<LinkSpec> links;
  BenchSpec bench;
};

// Parses and validates a topology. Every error names file:line:column and carries a hint.
Result<Topology> parse_topology_text(const std::string& text, const std::string& file);
Result<Topology> load_topology(const std::string& path);

}  // namespace vpnlab
