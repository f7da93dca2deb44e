// `vpnlab diff RUN_A RUN_B [--threshold X]`: verdicts between two run directories, with
// their provenance checked first (results of different backends are never compared).
#pragma once
#include <optional>
#include <string>

#include "lab/results/compare.h"
#include "lab/base/result.h"

namespace vpnlab {

struct DiffOutcome {
  std::string text;           // the table, provenance notes first
  std::vector<Comparison> comparisons;
  bool gate_failed = false;   // some comparison is slower by more than the threshold
};

// With `relative`, each product's samples are first divided by the baseline of the same
// run and round: what drifts for the whole machine between two runs cancels out.
Result<DiffOutcome> diff_runs(const std::string& run_a, const std::string& run_b, std::optional<double> threshold, bool relative = false);

// One run that measured two versions of a product (NAME@A=..., NAME@B=..., interleaved):
// A = the first tag asked for, B = the second, both renamed "NAME@A -> @B" so that they
// pair per test. `order`: the run's requested products.
struct TaggedPairs {
  std::vector<SampleRow> a, b;
  std::vector<std::string> labels;
};
TaggedPairs tagged_versions(const std::vector<SampleRow>& rows, const std::vector<std::string>& order);
Result<DiffOutcome> diff_tagged_run(const std::string& run, std::optional<double> threshold);

// Rows as ratios to the same run's baseline in the same round (sample number); baseline
// rows and rows without a valid baseline partner are dropped.
std::vector<SampleRow> relative_to_baseline(const std::vector<SampleRow>& rows);

}  // namespace vpnlab
