// A suite file (`vpnlab suite FILE`): the scenarios of one comparison, each a topology (with
// the products and tests it measures), so the whole field's comparison is one command and one
// page. Pure: reads one file, no syscalls beyond that.
//
//   [suite]
//   name = "seeds"
//   budget = "20m"             # optional: the whole suite's time (--budget overrides)
//   precision = "5%"           # optional: each scenario's target (default 5 %)
//   products = ["baseline", "wireguard-go"]   # optional: every scenario's default
//
//   [[scenario]]
//   name = "bulk-1-stream"
//   topology = "../topologies/quick.toml"     # relative to this file
//   products = ["baseline", "wireguard-go"]   # optional: else [suite] products, else the topology's
//   tests = ["a-to-b"]                        # optional: else every test of the topology
//   feature = "relay"                         # optional: the feature matrix's row it measures
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

inline constexpr double kDefaultSuitePrecision = 0.05;
inline constexpr size_t kMaxScenarios = 64;
// Names are directories of the output, not namespace names: longer than a lab's.
inline constexpr size_t kMaxScenarioName = 40;
// The feature matrix's rows a scenario can measure (lab/results/scorecard.h draws them).
inline const char* const kSuiteFeatures[] = {"relay", "chain", "firewall", "mtu", "mesh", "site-to-site"};

struct SuiteScenario {
  std::string name;      // a lab name: also its directory under the suite's output
  std::string topology;  // as resolved: relative to the suite file's directory
  std::string topology_as_written;
  std::vector<std::string> products;  // empty: the topology's [bench] products
  std::vector<std::string> tests;     // empty: every test
  std::string
      feature;   // what of the feature matrix it measures: relay, chain, firewall, mtu, mesh, site-to-site ("" = none)
  int line = 0;  // where the scenario starts in the suite file
};

struct Suite {
  std::string file;
  std::string name;
  std::optional<double> budget_s;
  double precision = kDefaultSuitePrecision;
  std::vector<SuiteScenario> scenarios;
};

// Errors name file:line:column with a hint, as the topology parser's do.
Result<Suite> parse_suite_text(const std::string& text, const std::string& file);
Result<Suite> load_suite(const std::string& path);

}  // namespace vpnlab
