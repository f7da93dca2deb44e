// Power before the run: what the planned samples can resolve, said by `plan` and at the start
// of `run`, for every kind of comparison the run will make: the conclusion's leader over the
// runner-up and `--vs` (round-paired t, lab/results/product_compare.h), two tagged versions
// in one run and `diff` of two such runs (rank test, lab/results/compare.h), each with its
// family's correction. The spread comes from the last comparable run or a stated default.
#pragma once
#include <string>
#include <vector>

#include "lab/record/results_csv.h"

namespace vpnlab {

struct Spread {
  double single = 0.05;    // standard deviation of a product's log Gbit/s between samples (~ its CV)
  double paired = 0.0707;  // of the log ratio of two products in the same round
  std::string source = "a stated default: 5 % CV per sample";
};
// The spread of an earlier run's tunnels: the median over product x test of the CV of
// their samples, and of the round-paired log ratios of each tunnel to the first one.
// Falls back to the default for what the run cannot tell (one tunnel: paired = single x sqrt 2).
Spread spread_of(const std::vector<SampleRow>& rows, const std::string& source);

// The smallest two-sided p the rank test can give with n samples a side: 2 / C(2n, n).
double min_rank_p(int n);
// The fewest samples a side whose rank test can reach alpha / family.
int rank_samples_needed(size_t family, double alpha = 0.05);
// The smallest relative difference (0.09 = 9 %) found with 80 % power at alpha / family:
// round-paired t with n rounds (non-central t); rank test with n samples a side (the test
// itself simulated, compare.h's rank_shift_for_power).
double paired_detectable(int n, size_t family, double paired_sd);
double rank_detectable(int n, size_t family, double single_sd);
// The same at an interval level already corrected for its family (a Comparison's level).
double paired_detectable_at(int n, double level, double paired_sd);
double rank_detectable_at(int n, double level, double single_sd);

// The comparisons a run will make.
struct PlannedComparisons {
  int samples = 0;
  size_t tests = 0;     // tests a leader is named for (not latency probes)
  size_t products = 0;  // all, baselines too (diff compares each)
  size_t tunnels = 0;
  std::string vs;                   // run --vs PRODUCT ("" none)
  std::vector<std::string> tagged;  // "nebula@old -> @new": versions of one product in this run
};
std::string power_text(const PlannedComparisons& c, const Spread& s);

}  // namespace vpnlab
