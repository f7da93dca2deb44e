// Regressions against a product's own past: is the newest run's figure worse than the runs
// before it, beyond chance and beyond a threshold? And where in a series did its level
// change (marked in the trend page)?
//
// The newest point is judged by a lookback prediction interval (conbench's idea, with an
// interval instead of a z-score): the history's points (each a run's geometric mean) give
// the mean m and spread s of log values, which hold the run-to-run noise of this machine
// and product as well as each run's own sampling noise. A new run from the same process
// falls within m +- t(n-1) * s * sqrt(1 + 1/n) with the interval's probability (Student's
// prediction interval: exact for log-normal figures). So the printed interval is that of
// newest / history, and the verdict reads it: "worse" only when the interval lies wholly on
// the worse side of 1 AND the ratio is beyond the threshold (significant and large enough to
// matter). The false-alarm rate is the interval's one tail; the README states it and the
// unit tests measure it (and the power) by simulation.
//
// Change points: binary segmentation with Student's two-sample t-test (pooled variance) on
// log values (Otava/Hunter split a series the same way, with E-divisive first): the split
// with the smallest p-value is kept when that p-value, times the number of splits tried, is
// below alpha; then each side is split again.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace vpnlab {

// The fewest earlier points a newest point is judged against (fewer: "no comparable history").
inline constexpr size_t kMinHistoryPoints = 4;
// The most recent points a newest point is judged against: older ones may be another era.
inline constexpr size_t kHistoryWindow = 20;
// One-sided false-alarm probability of one check (split over the series judged together).
inline constexpr double kCheckAlpha = 0.01;

struct Lookback {
  size_t history = 0;        // earlier points used
  double ratio = 0;          // newest / geometric mean of the history
  double low = 0, high = 0;  // prediction interval of that ratio at `level`
  double level = 0;
  std::string verdict;  // "slower"/"faster" (the metric's words), "... within the threshold", "no significant change"
  bool regression = false;  // worse, significantly and beyond the threshold
  double log_sd = 0;        // the history's spread: sample standard deviation of its logs
  // The smallest change (a fraction: 0.12 = 12 %) toward worse that this history flags
  // 80 % of the time, at its own noise and at `level`: detectable_change(log_sd, history,
  // ...), filled by `history check` (a simulation calling judge_newest need not pay for it).
  double detectable = 0;
};

// The change a history of `n` points with log-spread `s` (sample standard deviation of the
// logs) flags 80 % of the time, as a fraction of the mean: the prediction interval at
// `level` must leave 1 on the worse side, so the newest point's log distance over
// s * sqrt(1 + 1/n) is non-central t with n - 1 degrees of freedom (Boost.Math), solved
// for 80 % power and put back on the ratio scale.
double detectable_change(double s, size_t n, double level, bool higher_is_better);

// `history`: earlier points, oldest first (only the last kHistoryWindow are used); values <= 0
// are ignored. `level`: two-sided level of the interval (one tail is the false-alarm rate).
Lookback judge_newest(const std::vector<double>& history, double newest, bool higher_is_better, double threshold,
                      double level, const std::string& better, const std::string& worse);

// Indices i where a new level starts (points i-1 and i are on different sides), ascending.
// Segments hold at least `min_segment` points. Values <= 0 are treated as missing.
std::vector<size_t> change_points(const std::vector<double>& values, double alpha = 0.01, size_t min_segment = 2);

}  // namespace vpnlab
