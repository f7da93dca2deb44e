#include "lab/history/history_check.h"

#include <fmt/format.h>
#include <cmath>
#include <cstdio>

#include "lab/base/text_table.h"

namespace vpnlab {

namespace {

std::string percent(double fraction) { return fmt::format("{:.1f} %", 100 * fraction); }

}  // namespace

std::string what_would_see(const CheckOutcome& o, double threshold, bool higher_is_better) {
  // The blindest judged series decides: the comparable runs it would need at its spread,
  // up to the window; beyond that only a smaller spread helps, which more samples per run
  // give when the runs differ by their samples' noise.
  const CheckLine* blind = nullptr;
  for (const auto& l : o.lines)
    if (l.result.history >= kMinHistoryPoints && (!blind || l.result.detectable > blind->result.detectable)) blind = &l;
  if (!blind || !(threshold > 0)) return "add runs, or samples per run";
  const double sd = blind->result.log_sd;
  for (size_t n = blind->result.history + 1; n <= kHistoryWindow; ++n)
    if (detectable_change(sd, n, o.level, higher_is_better) <= threshold)
      return std::to_string(n) + " comparable earlier runs at this spread would see it (" +
             std::to_string(blind->result.history) + " now, for " + blind->product + " " + blind->test + ")";
  const double at_window = detectable_change(sd, kHistoryWindow, o.level, higher_is_better);
  const double more = std::pow(at_window / threshold, 2);
  return fmt::format(
      "even {} runs at this spread see only {}; runs of about {:.0f}x the samples each would (if the runs differ "
      "by their samples' noise)",
      kHistoryWindow, percent(at_window).c_str(), std::ceil(more));
}

CheckOutcome check_newest(const std::vector<Trend>& trends, const CheckQuery& query, const HistoryMetric& metric) {
  CheckOutcome out;
  // The newest run that has a point in some series.
  std::string newest_started;
  for (const auto& t : trends)
    if (!t.points.empty() && std::make_pair(t.points.back().started, t.points.back().run_id) >=
                                 std::make_pair(newest_started, out.newest_run))
      newest_started = t.points.back().started, out.newest_run = t.points.back().run_id;
  for (const auto& t : trends)  // a series takes the environment of its newest point
    if (!t.points.empty() && t.points.back().run_id == out.newest_run) out.environment = t.environment;
  // First who has enough history (the family), then every interval at the family's level.
  std::vector<std::pair<const Trend*, std::vector<double>>> judged;
  for (const auto& t : trends) {
    if (t.points.empty() || t.points.back().run_id != out.newest_run) continue;
    std::vector<double> history;
    for (size_t i = 0; i + 1 < t.points.size(); ++i) history.push_back(t.points[i].value);
    judged.emplace_back(&t, history);
    if (std::min(history.size(), kHistoryWindow) >= kMinHistoryPoints) ++out.family;
  }
  out.level = 1 - 2 * kCheckAlpha / static_cast<double>(std::max<size_t>(out.family, 1));
  bool regression = false;
  for (const auto& [t, history] : judged) {
    CheckLine line{t->product, t->test, t->points.back().value, {}};
    line.result = judge_newest(history, line.newest, metric.higher_is_better, query.threshold, out.level, metric.better,
                               metric.worse);
    if (line.result.history >= kMinHistoryPoints)
      line.result.detectable =
          detectable_change(line.result.log_sd, line.result.history, out.level, metric.higher_is_better);
    regression = regression || line.result.regression;
    if (line.result.history >= kMinHistoryPoints) out.detectable = std::max(out.detectable, line.result.detectable);
    out.lines.push_back(line);
  }
  // A history that cannot see a change of the threshold's size says so: "no regression"
  // from it would be a promise it cannot keep.
  out.exit_code = regression                         ? kExitRegression
                  : out.family == 0                  ? kExitNoHistory
                  : out.detectable > query.threshold ? kExitHistoryBlind
                                                     : 0;
  return out;
}

std::string check_text(const CheckOutcome& o, const CheckQuery& query, const HistoryMetric& metric) {
  if (o.lines.empty())
    return "history check: no run in the history has " +
           (query.product.empty() ? std::string("any figure") : "product '" + query.product + "'") + "\n";
  std::string level = fmt::format("{:.4g} %", 100 * o.level);
  std::string s = "history check: run " + o.newest_run + " (" + o.environment + ")\n" + metric.title +
                  ": newest against the geometric mean of up to " + std::to_string(kHistoryWindow) +
                  " earlier comparable runs, " + level + " prediction interval (" + std::to_string(o.family) +
                  " series judged together), threshold " + history_figure(100 * query.threshold) + " %\n";
  TextTable t({-24, -14, 8, 10, 8, -21, 8, -1});
  s += t.line({"product", "test", "history", "newest", "ratio", "interval", "detects", "verdict"});
  for (const auto& l : o.lines) {
    const Lookback& r = l.result;
    const bool judged = r.history >= kMinHistoryPoints;
    s += t.line({l.product, l.test, std::to_string(r.history), history_figure(l.newest),
                 judged ? history_figure(r.ratio) : "-",
                 judged ? "[" + history_figure(r.low) + ", " + history_figure(r.high) + "]" : "-",
                 judged ? percent(r.detectable) : "-",
                 judged ? r.verdict
                        : "no comparable history (" + std::to_string(r.history) + " of " +
                              std::to_string(kMinHistoryPoints) + " runs)"});
  }
  if (o.family > 0)
    s += "detects: the change toward " + metric.worse +
         " each series flags 80 % of the time at its own runs' spread; this history sees " + percent(o.detectable) +
         " or more\n";
  if (o.exit_code == kExitRegression)
    s += "regression: the newest run is " + metric.worse + " beyond the threshold (exit 3)\n";
  else if (o.exit_code == kExitNoHistory)
    s += "no comparable history to judge by: at least " + std::to_string(kMinHistoryPoints) +
         " earlier runs in the same environment (exit 4)\n";
  else if (o.exit_code == kExitHistoryBlind)
    s += "cannot see the threshold: this history detects changes of " + percent(o.detectable) +
         " or more, the threshold asks for " + percent(query.threshold) +
         "; nothing beyond it was seen, but a smaller drop would pass unseen: " +
         what_would_see(o, query.threshold, metric.higher_is_better) + " (exit 5)\n";
  else
    s += "no regression (exit 0)\n";
  return s;
}

}  // namespace vpnlab
