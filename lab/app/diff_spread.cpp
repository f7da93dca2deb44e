#include "lab/app/diff_spread.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "lab/history/history_store.h"
#include "lab/history/run_spread.h"
#include "lab/history/trend.h"

namespace vpnlab {
namespace {

// "wireguard-go / a-to-b ±5.9 % (8 runs)"
std::string spread_text(const Comparison& c) {
  std::string buf = fmt::format(" ±{:.1f} % ({} runs)", 100 * (std::exp(c.between_run_sd) - 1), c.between_runs);
  return c.product + " / " + c.test + buf;
}

std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

}  // namespace

std::string add_between_run_spreads(const std::string& history_path, const std::string& run_a_id,
                                    const std::string& run_b_id, const std::string& metric_key, bool say_unknown,
                                    std::vector<Comparison>* comparisons) {
  const std::string path = history_path.empty() ? default_history_path() : history_path;
  const std::string unproven = say_unknown ? "their intervals hold each run's own samples only, and two runs of one "
                                             "build often differ by more (docs/results.md, 'Between runs')\n"
                                           : "";
  auto store = HistoryStore::open(path, HistoryAccess::read_only);
  if (!store)
    return say_unknown ? "between runs: no history to learn it from (" + store.error().message + "): " + unproven : "";
  auto metric = history_metric(metric_key);
  if (!metric) return "";
  std::map<std::string, std::vector<Trend>> series;  // product -> its series
  for (const auto& c : *comparisons) {
    if (!(c.ratio > 0) || series.count(c.product)) continue;
    auto trends = load_trends(*store, TrendQuery{c.product, "", metric->key, false}, *metric);
    if (!trends)
      return say_unknown ? "between runs: the history at " + path + " cannot be read (" + trends.error().message +
                               "): " + unproven
                         : "";
    series[c.product] = std::move(*trends);
  }
  std::vector<std::string> added, absent, few;  // in the table's order
  for (auto& c : *comparisons) {
    if (!(c.ratio > 0)) continue;
    std::optional<RunSpread> spread;  // from the series that holds run A or B
    for (const auto& t : series[c.product]) {
      const bool holds_these = std::any_of(t.points.begin(), t.points.end(), [&](const TrendPoint& p) {
        return p.run_id == run_a_id || p.run_id == run_b_id;
      });
      if (t.product == c.product && t.test == c.test && holds_these) spread = run_spread_of(t, {run_a_id, run_b_id});
    }
    if (!spread || !spread->known()) {
      (spread ? few : absent).push_back(c.product + " / " + c.test);
      continue;
    }
    add_between_run_spread(&c, spread->sd, spread->runs, metric->better, metric->worse);
    added.push_back(spread_text(c));
  }
  std::string text;
  if (!added.empty())
    text +=
        "between runs: each interval above also holds how far whole runs of one build differ here beyond their "
        "samples (the history's comparable runs at their current level, these two left out): " +
        listed(added) + "\n";
  if (!say_unknown) return text;
  if (!absent.empty())
    text += "between runs: not known for " + listed(absent) + " (neither run is in " + path + "): " + unproven;
  if (!few.empty())
    text += "between runs: not known for " + listed(few) + " (fewer than " + std::to_string(kRunSpreadMinRuns) +
            " other comparable runs in " + path + "): " + unproven;
  return text;
}

}  // namespace vpnlab
