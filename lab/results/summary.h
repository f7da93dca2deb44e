// What a run's rows add up to, per product x test: the table printed at the end of a run
// and summary.json. Both come from results.csv alone (`vpnlab report` redoes them).
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/sequential.h"
#include "lab/base/stats.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

inline constexpr int kSummarySchema = 2;
inline constexpr double kHighCv = 0.10;  // flagged: the median of such samples moves a lot

struct ProductTestSummary {
  std::string product, test;
  int rows = 0;      // all rows, failed ones included
  int not_run = 0;   // rows of a test the product cannot run (kNotRun)
  SampleStats gbps;  // valid rows only (as all below); also in `metrics`
  // Every figure of the metric table (lab/record/metrics.h) by its key: "cpu_s_per_gbit", ...
  std::map<std::string, SampleStats> metrics;
  const SampleStats& metric(const std::string& key) const;
  double ratio_to_baseline = 0;  // median / baseline median of the same test; 0 = none
  // Per round (sample i of this product and of the baseline): the ratios' median and its
  // interval (summary.json's paired_ratio_to_baseline). Interleaved runs measure both in the
  // same round, close in time.
  SampleStats paired_ratio;
  // The same ratios' geometric mean with its 95 % t interval: what the tables print
  // (ratio_interval_text), the one interval `compare` and adaptive sampling have too.
  RatioInterval baseline_ratio;
  double cpu_over_baseline = 0;      // CPU-s/Gbit minus the baseline's (medians)
  double baseline_retransmits = -1;  // the baseline's median for the same test; -1 = none
  int threads = 0;                   // most OS threads seen on one node
  int generator_bound = 0;           // rows where an iperf3 process used >= 90 % of a CPU
  int loaded_rows = 0;               // rows that found a task from outside the lab runnable before them
  int disturbed = 0;                 // rows the hypervisor disturbed (is_disturbed)
};

// In order of first appearance.
std::vector<ProductTestSummary> summarize(const std::vector<SampleRow>& rows);

// The rows `keep` takes, grouped by product and test in order of first appearance: the
// row order of every per-kind table (UDP, load latency).
struct ProductTestRows {
  std::string product, test;
  std::vector<const SampleRow*> rows;
};
std::vector<ProductTestRows> group_by_product_test(const std::vector<SampleRow>& rows, bool (*keep)(const SampleRow&));
// The figure `field` of the rows that count as results (counts_as_result), described.
SampleStats describe_field(const std::vector<const SampleRow*>& rows, double SampleRow::*field);

// How a run's results are shown (run, report): `--vs PRODUCT` and `--sort fastest|file`.
struct ResultView {
  std::string vs;           // every other product over this one ("" : none; the report's default: the first tunnel)
  bool file_order = false;  // --sort file: products in the order they ran, tests as they come
};
// Grouped by test (in order of first appearance), fastest first within each (products
// without a valid row last); with `file_order` as they are.
std::vector<ProductTestSummary> in_reading_order(std::vector<ProductTestSummary> summaries, bool file_order);

std::string summary_table(const std::vector<SampleRow>& rows, bool file_order = false);
// "1.23±9%": the median and the wider side of its 95 % interval, relative ("*": covers
// less than 95 %, fewer than 6 samples); "-" without samples. `format`: fmt's ("{:.2f}"); `scale`
// divides the values.
std::string compact_interval(const SampleStats& s, const char* format, double scale = 1);
// What a reader must not miss: invalid rows, high CV, generator-bound samples, outside load.
std::vector<std::string> summary_warnings(const std::vector<ProductTestSummary>& summaries);
nlohmann::json summary_json(const std::vector<SampleRow>& rows);

// A run against what was asked of it: every requested product x test pair without a single
// valid row ("wireguard-go / a-to-b"), and how many rows failed or are invalid. The exit
// code of `run` comes from it.
// Pairs the product cannot run by design (rows whose reason starts with kNotRun) are not
// failures: they are listed in not_run.
struct Completeness {
  std::vector<std::string> without_valid;
  std::vector<std::string> not_run;
  int not_valid = 0;
  int rows = 0;
};
Completeness completeness(const std::vector<SampleRow>& rows, const std::vector<std::string>& products,
                          const std::vector<std::string>& tests);

}  // namespace vpnlab
