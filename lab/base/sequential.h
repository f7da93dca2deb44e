// Adaptive sampling with a stopping rule that does not bias the interval: each product x
// test's ratio to its reference takes rounds until it is known to a requested precision, or
// time or the round limit runs out. Looking at the data after every round and stopping when the interval is
// narrow enough would make the interval too optimistic, so:
//   - a fixed minimum of rounds first, then looks at spaced round counts only (each look
//     half as far again: 5, 8, 12, 18, 27, ...), fixed before the run starts;
//   - at every look the interval is the Student t interval of the mean log ratio at level
//     1 - alpha / K, K = the number of looks planned (a Bonferroni correction over the
//     looks), so the interval reported when sampling stops covers the true ratio with at
//     least 1 - alpha whichever look it stopped at.
// The ratio is the geometric mean of round-paired ratios (product / reference in the same
// round), so slow drifts of the machine cancel as in the rest of vpnlab.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace vpnlab {

struct SequentialPlan {
  double target = 0.02;  // relative half-width of the interval asked for (0.02 = ±2 %)
  int min_rounds = 5;
  int max_rounds = 100;  // rounds the run may take at most (time and --samples bound it)
  double alpha = 0.05;

  // The round counts at which the rule looks, ascending; the last is max_rounds.
  std::vector<int> looks() const;
  // The level of every look's interval: 1 - alpha / looks().size().
  double confidence_per_look() const;
};

struct RatioInterval {
  size_t n = 0;
  double ratio = 0;          // geometric mean of the paired ratios
  double low = 0, high = 0;  // interval of that ratio
  double half_width = 0;     // relative: max(high / ratio - 1, 1 - low / ratio); huge with n < 2
  double log_sd = 0;         // standard deviation of log(ratio) (n >= 2)
};

// Student t interval of the mean of log(ratios) at `confidence`, back on the ratio scale.
// Ratios <= 0 are ignored.
RatioInterval ratio_interval(const std::vector<double>& ratios, double confidence);

// Two-sided Student t quantile: P(|T| <= q) = confidence for `df` degrees of freedom.
double t_quantile(double confidence, int df);
// Two-sided p-value P(|T| >= |t|) for `df` degrees of freedom.
double t_two_sided_p(double t, int df);

// Per series: each stops on its own at the first look where its interval is within the
// target (its product takes no more rounds), so every series' interval keeps its coverage
// whichever look stopped it (unit.Sequential.* simulates it).
struct SeriesLook {
  bool met = false;  // stopped at a look with its interval within the target
  int rounds = 0;    // the rounds its interval stands on (when met: the look it stopped at)
  double half_width = 0;
};
// After `rounds` rounds: the series not met yet take this round's interval; at a look
// within the target they are met. *state has one entry per series.
void look_at_series(const SequentialPlan& plan, int rounds, const std::vector<std::vector<double>>& ratio_series,
                    std::vector<SeriesLook>* state);

// Whether another round fits: elapsed + the mean round time so far stays within max_time_s
// (0: no limit).
bool round_fits(double elapsed_s, int rounds_done, double max_time_s);

}  // namespace vpnlab
