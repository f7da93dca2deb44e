// `vpnlab compare RUN A B [--test T]`: which of two products of one run is faster and
// cheaper, by how much and how sure (lab/results/product_compare.h).
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/results/product_compare.h"
#include "lab/results/sweep_effects.h"

namespace vpnlab {

struct CompareOutcome {
  std::string run_id, a, b;
  std::vector<Comparison> comparisons;  // B over A, per test and metric
  std::string text;
};

// Refuses, naming what the run has instead: a product without rows in the run, A = B, a
// test neither ran.
Result<CompareOutcome> compare_in_run(const std::string& run_dir, const std::string& a, const std::string& b,
                                      const std::string& test);

// `compare RUN --effects`: the effects of the run's swept axes; refused, with what the run
// has, when no test is swept on two values.
struct EffectsOutcome {
  std::string run_id;
  std::vector<SweepEffect> effects;
  std::string text;
};
Result<EffectsOutcome> effects_in_run(const std::string& run_dir);

// For `run --vs` and `report --vs`: REF must be a product of the rows.
Status check_vs_product(const std::vector<SampleRow>& rows, const std::string& ref, const std::string& where);

}  // namespace vpnlab
