// A product's figures across the runs of the history: one point per run (and product
// build), each the geometric mean of the run's valid samples with its Student t interval
// (of the mean log: exact for log-normal figures, checked by simulation in the unit tests),
// or, for "ratio", the round-paired ratio to the same run's baseline (lab/results/paired.h),
// which cancels what drifts for the whole machine between runs.
//
// Points are put in one series only when their runs are comparable (one function:
// comparability_key, lab/results/provenance.h). A series follows the environment of its
// newest point; points measured elsewhere are kept apart, never mixed in.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lab/history/history_store.h"

namespace vpnlab {

struct HistoryMetric {
  std::string key, title;
  bool higher_is_better = true;
  std::string better, worse;
};
// "ratio" (to the same run's baseline) and every results.csv metric (lab/record/metrics.h).
Result<HistoryMetric> history_metric(const std::string& key);
// Their keys: "ratio", "gbps", "cpu_s_per_gbit", ... (messages, completion of --metric).
std::vector<std::string> history_metric_keys();

// The level of each point's interval.
inline constexpr double kTrendPointLevel = 0.95;

struct TrendPoint {
  std::string run_id, started;
  std::string product;                  // as the run named it: "nebula@1.9.7"
  std::string version;                  // the build's version token ("1.9.7"), "" when not recorded
  size_t n = 0;                         // samples (pairs, for "ratio")
  double value = 0, low = 0, high = 0;  // low/high: 95 % interval (n >= 2), else the value
  bool change_point = false;            // a new level starts here (comparable points only)
};

struct Trend {
  std::string product;  // the series' name: a product, or a base name when by version
  std::string test;
  HistoryMetric metric;
  std::string environment;         // comparability_text of the series' environment
  std::vector<TrendPoint> points;  // comparable, oldest first (or by version)
  std::vector<TrendPoint> apart;   // measured in other environments: shown, not judged
};

struct TrendQuery {
  std::string product;  // a name or base name; "" = every product
  std::string test;     // "" = every test
  std::string metric = "gbps";
  bool by_version = false;  // one series per base name (nebula, nebula@1.9.7, ...) ordered by version
};

// The series, one run at a time (oldest first): what it keeps is the points, never the runs'
// rows, so a history of any length costs the memory of its points.
class TrendBuilder {
 public:
  TrendBuilder(TrendQuery query, HistoryMetric metric);
  void add(const RunRecord& run);
  std::vector<Trend> finish();

 private:
  struct Collected {
    Trend trend;
    std::vector<std::pair<std::string, TrendPoint>> points;  // (comparability key, point)
    std::string newest_key, newest_text;
  };
  TrendQuery query_;
  HistoryMetric metric_;
  std::map<std::pair<std::string, std::string>, Collected> series_;  // (name, test)
  std::vector<std::pair<std::string, std::string>> order_;           // first seen first
};

// `runs`: oldest first.
std::vector<Trend> build_trends(const std::vector<RunRecord>& runs, const TrendQuery& query,
                                const HistoryMetric& metric);
// The same streamed from the history: one run in memory at a time.
Result<std::vector<Trend>> load_trends(HistoryStore& store, const TrendQuery& query, const HistoryMetric& metric);

// A figure as the history prints it (tables, page, check): four significant digits.
std::string history_figure(double v);

// The name before '@': "nebula@1.9.7" -> "nebula".
std::string base_product(const std::string& product);

}  // namespace vpnlab
