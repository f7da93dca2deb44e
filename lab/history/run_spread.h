// How much whole runs of one build differ beyond what each run's own samples say, from the
// history (bench/run_spread_bench measured it: wireguard-go's Gbit/s moved between runs
// twice as far as a run's interval holds). A comparison of two separate runs (`vpnlab diff
// A B`) cannot see that spread in its samples; the history's comparable runs can.
//
// From one series (lab/history/trend.h: comparable runs only), the points since its last
// change point (one level; a release that moved the figure is not noise), each a run's mean
// log figure m_i with its standard error s_i (from its t interval): the between-run variance
// beyond the samples' is var(m) - mean(s^2), floored at 0. Its square root is the SD a run's
// log estimate carries on top of its own interval.
#pragma once
#include <set>
#include <string>

#include "lab/history/trend.h"

namespace vpnlab {

// Fewer comparable runs than this say too little about a spread: none is estimated.
inline constexpr size_t kRunSpreadMinRuns = 4;

struct RunSpread {
  double sd = 0;    // the excess SD of a run's log estimate (0: none beyond its samples')
  size_t runs = 0;  // the comparable runs it comes from (< kRunSpreadMinRuns: not estimated)
  bool known() const { return runs >= kRunSpreadMinRuns; }
};

// `exclude`: runs left out (the two being compared: their difference is the question).
RunSpread run_spread_of(const Trend& trend, const std::set<std::string>& exclude);

}  // namespace vpnlab
