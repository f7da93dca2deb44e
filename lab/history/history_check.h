// `vpnlab history check`: the newest run's figures judged against each product's own
// comparable past (lab/history/detector.h), one line per product and test, and an exit code
// a CI job gates on: 3 a regression, 0 none, 4 no comparable history to judge by, 5 a
// history too noisy or too short to see a change of the threshold's size.
#pragma once
#include <string>
#include <vector>

#include "lab/base/exit_codes.h"
#include "lab/history/detector.h"
#include "lab/history/trend.h"

namespace vpnlab {

inline constexpr int kExitRegression = kExitGate;
inline constexpr int kExitNoHistory = kExitNoValidRow;
inline constexpr int kExitHistoryBlind = kExitSomeInvalid;

struct CheckQuery {
  std::string product, test;  // "" = every one the newest run has
  std::string metric = "gbps";
  double threshold = 0.05;  // a worse ratio must also be beyond 1 -+ this
};

struct CheckLine {
  std::string product, test;
  double newest = 0;  // the newest run's point
  Lookback result;
};

struct CheckOutcome {
  std::string newest_run;
  std::string environment;  // comparability_text of the newest run
  size_t family = 0;        // series judged together
  double level = 0;         // each interval's: 1 - 2 alpha / family
  std::vector<CheckLine> lines;
  double detectable = 0;  // the widest change a judged series needs to be seen (80 % of the time)
  int exit_code = kExitNoHistory;
};

// `trends`: the query's series by date (build_trends or load_trends); the newest run is the
// newest point's.
CheckOutcome check_newest(const std::vector<Trend>& trends, const CheckQuery& query, const HistoryMetric& metric);
std::string check_text(const CheckOutcome& outcome, const CheckQuery& query, const HistoryMetric& metric);
// When the history cannot see the threshold: how many comparable runs would, at the spread
// of its blindest series; or, past the window, how many times the samples per run.
std::string what_would_see(const CheckOutcome& outcome, double threshold, bool higher_is_better);

}  // namespace vpnlab
