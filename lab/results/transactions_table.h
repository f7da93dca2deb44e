// rr and crr tests' results, per product x test: transactions (crr: connections) per
// second with their interval and their ratio to the baseline's in the same round, the
// generator's latency percentiles, and CPU per transaction. The throughput table leaves
// these tests out: their Gbit/s is a few request bytes.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/sequential.h"
#include "lab/base/stats.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

struct TransactionSummary {
  std::string product, test, kind;
  int rows = 0;
  SampleStats tps;               // valid rows only (as all below)
  SampleStats paired_ratio;      // per round, over the baseline's
  RatioInterval baseline_ratio;  // the same ratios' geometric mean, 95 % t interval: what tables print
  SampleStats p50_ms, p90_ms, p99_ms, p999_ms;
  SampleStats cpu_us_per_tx;  // system-wide busy CPU over the transactions
  SampleStats rss_kb;
};

std::vector<TransactionSummary> summarize_transactions(const std::vector<SampleRow>& rows);

// "" when the run has no rr/crr test.
std::string transactions_table(const std::vector<SampleRow>& rows);
nlohmann::json transactions_json(const std::vector<SampleRow>& rows);

}  // namespace vpnlab
