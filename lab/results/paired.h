// Two products measured in the same rounds of one run: each round gives a pair (A's
// sample i, B's sample i), measured seconds apart on the same machine, so what drifts for
// the whole machine cancels within the pair. The ratio B/A is the geometric mean of the
// round-paired ratios, with the Student t interval and p-value of the mean log ratio:
// the same interval adaptive sampling stops on (lab/base/sequential.h). Why not a
// rank test as `diff` uses between runs: with the few rounds of a quick comparison, the
// signed-rank test cannot reach 5 % below 6 pairs, nor survive a Holm correction over a
// few tests below 8 to 10; an outlier round widens the t interval (fewer verdicts), it
// does not make one.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/sequential.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

struct PairedEstimate {
  size_t n = 0;                    // pairs used (both values > 0)
  double ratio = 0;                // B / A
  double ci_low = 0, ci_high = 0;  // its interval at the level asked for
  double p_value = 1;              // two-sided, H0: the mean log ratio is 0
  double log_sd = 0;               // the spread of the log ratios (n >= 2)
};

// a[i] and b[i] are one round's values; pairs with a value <= 0 are left out.
PairedEstimate paired_ratio(const std::vector<double>& a, const std::vector<double>& b, double level = 0.95);

// A ratio to the baseline as every table and the report print it, one interval per ratio:
// the geometric mean of the per-round ratios with its 95 % t interval (ratio_interval), the
// estimator `compare` judges with and adaptive sampling stops on. "0.512 (0.498-0.527)";
// wider than ±50 % it says so, "0.030 ±188 %", rather than a pair of bounds that read as a
// finding; one round: the ratio alone; none: "-".
inline constexpr double kRatioLevel = 0.95;
std::string ratio_interval_text(const RatioInterval& r);
// summary.json's ratio_to_baseline_interval: n, ratio, and with 2 rounds or more ci_low, ci_high, level.
nlohmann::json ratio_interval_json(const RatioInterval& r);

// Round (sample number) -> value, for one product and test: the rows that count as results,
// with a value > 0.
using ByRound = std::map<int, double>;
ByRound values_by_round(const std::vector<SampleRow>& rows, const std::string& product, const std::string& test,
                        double (*value)(const SampleRow&));
// The rounds both measured, in round order, appended to *va and *vb (one round's each).
void pair_rounds(const ByRound& a, const ByRound& b, std::vector<double>* va, std::vector<double>* vb);

}  // namespace vpnlab
