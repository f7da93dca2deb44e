// The figures a sample's row is judged by, one entry each: what the summary gives a median
// and an interval, what summary.json holds per product and test, and what `compare` and
// `diff` give verdicts on. Made from the metric facets of the figure table (figures.cpp),
// in their rank: a new figure is an entry there, not here.
#pragma once
#include <string>
#include <vector>

#include "lab/record/results_csv.h"

namespace vpnlab {

struct MetricColumn {
  std::string key;    // results.csv's column and summary.json's key: "cpu_s_per_gbit"
  std::string title;  // "CPU-s/Gbit"
  bool higher_is_better = true;
  std::string better, worse;  // verdict words: "faster"/"slower", "cheaper"/"costlier", ...
  bool judged = false;        // `compare` and `diff` give it a verdict (beside Gbit/s)
  double (*value)(const SampleRow&) = nullptr;
  // Whether the row measured it (no daemon: no RSS; no echoes: no latency; UDP: no retransmits).
  bool (*measured)(const SampleRow&) = nullptr;
  // A "median (interval)" column of the summary and report tables; empty head: none.
  std::string table_head;
  int table_width = 12;
  std::string format = "{:.2f}";
  double scale = 1;
  int table_rank = 0;
};

// The metrics with a table column, in their table order.
const std::vector<const MetricColumn*>& tabled_metrics();

// In the summary's order; the first is Gbit/s.
const std::vector<MetricColumn>& metric_columns();
// The entry of `key`; Gbit/s's when there is none.
const MetricColumn& metric_column(const std::string& key);

}  // namespace vpnlab
