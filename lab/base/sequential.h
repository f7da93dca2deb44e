// Adaptive sampling with a stopping rule that does not bias the interval: each product x
// test's ratio to its reference takes rounds until it is known to a requested precision, or
// time or the round limit runs out. Looking at the data after every round and stopping when
// the interval is narrow enough would make the interval too optimistic (it stops when the
// spread happens to look small), so the rule is Stein's two-stage procedure (1945):
//   - a first stage of n0 rounds (SequentialPlan::min_rounds) gives the spread s0 of the
//     log ratio, and from it alone the rounds the ratio needs:
//     N = max(n0, ceil((t(n0 - 1) * s0 / log(1 + target))^2));
//   - after N rounds (or fewer, when the time or round limit comes first) the interval is
//     the mean log ratio of all n rounds ± t(n0 - 1) * s0 / sqrt(n), at 1 - alpha.
// N depends on the first stage's spread only, and with normal noise the mean of all rounds
// is independent of it, so the interval covers with exactly 1 - alpha whatever N came out;
// its half-width is within the target once n >= N. unit.Sequential.* simulates it, with
// heavy tails and outlier rounds too. An earlier rule looked at spaced round counts at
// 1 - alpha / K each (Bonferroni over K looks): it covered 98-99 % and took a third more
// rounds for the same width.
// The ratio is the geometric mean of round-paired ratios (product / reference in the same
// round), so slow drifts of the machine cancel as in the rest of vpnlab.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace vpnlab {

struct SequentialPlan {
  double target = 0.02;  // relative half-width of the interval asked for (0.02 = ±2 %)
  int min_rounds = 6;    // the first stage: the rounds whose spread sets how many are needed
  int max_rounds = 100;  // rounds the run may take at most (time and --samples bound it)
  double alpha = 0.05;

  // The first stage's length as the round limit allows it (at least 2: a spread needs two).
  int first_stage() const;
  double confidence() const { return 1 - alpha; }
  // N: the rounds a ratio whose first stage had log spread `first_sd` needs for the target.
  int rounds_needed(double first_sd) const;
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

// The two-stage interval: the mean log ratio of all `ratios` ± t(first - 1) * (the log
// spread of the first `first` of them) / sqrt(n), at `confidence`. Fewer than `first`
// ratios: the ordinary t interval of those there are (a fixed count: the time ran out).
// Ratios <= 0 are ignored.
RatioInterval two_stage_interval(const std::vector<double>& ratios, int first, double confidence);

// Per series: each stops on its own once it has the rounds its first stage asked for (its
// product takes no more rounds), so every series' interval keeps its coverage (unit.Sequential.*).
struct SeriesLook {
  bool met = false;  // has the rounds its first stage said it needs
  int rounds = 0;    // the paired rounds its interval stands on
  double half_width = 0;
  int needed = 0;  // N, once the first stage is in (0 before)
  double first_sd = 0;
};
// After each round: every series not met yet takes its interval; those with the rounds they
// need are met. *state has one entry per series.
void look_at_series(const SequentialPlan& plan, const std::vector<std::vector<double>>& ratio_series,
                    std::vector<SeriesLook>* state);

// Whether another round fits: elapsed + the mean round time so far stays within max_time_s
// (0: no limit).
bool round_fits(double elapsed_s, int rounds_done, double max_time_s);

}  // namespace vpnlab
