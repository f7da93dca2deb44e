// What a run's rows add up to, per product x test: the table printed at the end of a run
// and summary.json. Both come from results.csv alone (`vpnlab report` redoes them).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/results_csv.h"
#include "lab/stats.h"

namespace vpnlab {

inline constexpr int kSummarySchema = 1;

struct ProductTestSummary {
  std::string product, test;
  int rows = 0;              // all rows, failed ones included
  SampleStats gbps;          // valid rows only
  SampleStats cpu_per_gbit;  // valid rows only
  double ratio_to_baseline = 0;  // median / baseline median of the same test; 0 = none
};

// In order of first appearance.
std::vector<ProductTestSummary> summarize(const std::vector<SampleRow>& rows);

std::string summary_table(const std::vector<SampleRow>& rows);
nlohmann::json summary_json(const std::vector<SampleRow>& rows);

}  // namespace vpnlab
