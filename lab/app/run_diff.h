// `vpnlab diff RUN_A RUN_B [--threshold X]`: verdicts between two run directories, with
// their provenance checked first (results of different backends are never compared).
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"
#include "lab/results/compare.h"
#include "lab/results/provenance.h"

namespace vpnlab {

struct DiffOutcome {
  std::string text;                              // the tables, provenance notes first
  std::vector<Comparison> comparisons;           // throughput
  std::vector<Comparison> costs;                 // CPU-s/Gbit, daemon RSS, p99: where both runs measured them
  bool gate_failed = false;                      // some comparison is worse by more than its threshold
  std::vector<ProvenanceDifference> provenance;  // two runs: what differs between them
  // Two runs compared as measured (not --relative): the tests on which the baseline itself
  // differs beyond its interval. The machine moved between the runs, and every verdict of
  // that test carries the move.
  std::vector<Comparison> baseline_moves;
};

// The gate's limits, each optional: --threshold (throughput), --threshold-cpu,
// --threshold-rss, --threshold-p99 (relative, 0.1 = 10 %).
struct Thresholds {
  std::optional<double> gbps, cpu, rss, p99;
  std::optional<double> of(const std::string& metric_key) const;
};

// With `relative`, each product's samples are first divided by the baseline of the same
// run and round: what drifts for the whole machine between two runs cancels out. Runs of
// different topologies or pinning are refused unless `force`; every provenance difference
// is stated above the verdicts. With `history` (a path, "" = the default history), each
// throughput comparison also holds how far whole runs differ beyond their samples, learned
// from the history's comparable runs (lab/app/diff_spread.h).
Result<DiffOutcome> diff_runs(const std::string& run_a, const std::string& run_b, const Thresholds& thresholds,
                              bool relative = false, bool force = false,
                              const std::optional<std::string>& history = std::nullopt);

// One run that measured two versions of a product (NAME@A=..., NAME@B=..., interleaved):
// A = the first tag asked for, B = the second, both renamed "NAME@A -> @B" so that they
// pair per test. `order`: the run's requested products.
struct TaggedPairs {
  std::vector<SampleRow> a, b;
  std::vector<std::string> labels;
};
TaggedPairs tagged_versions(const std::vector<SampleRow>& rows, const std::vector<std::string>& order);
Result<DiffOutcome> diff_tagged_run(const std::string& run, const Thresholds& thresholds);

// Two runs, each with one version of a product under another name (nebula@v1.6.1 in A,
// nebula@v1.7.0 in B; or one side untagged): both sides renamed "nebula@v1.6.1 -> @v1.7.0"
// so that they pair per test. A product with two versions in a run is left as it is (which
// would it pair with?). Returns what was paired, one line each, for the output.
std::vector<std::string> pair_versions_across_runs(std::vector<SampleRow>* a, std::vector<SampleRow>* b);

// Rows as ratios to the same run's baseline in the same round (sample number); baseline
// rows and rows without a valid baseline partner are dropped.
std::vector<SampleRow> relative_to_baseline(const std::vector<SampleRow>& rows);

}  // namespace vpnlab
