// The hop-cost table of a run on [[chain]]s: per product and test, the hops its traffic
// crossed, throughput, CPU-s/Gbit and p99 latency under load, and what each hop count
// costs over one hop: the ratio of its samples to the one-hop test's in the same rounds,
// with the paired 95 % interval (lab/results/paired.h). Throughput tests only.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/stats.h"
#include "lab/record/results_csv.h"
#include "lab/results/paired.h"
#include "lab/results/report_kinds.h"

namespace vpnlab {

struct HopCost {
  std::string product, test;
  int hops = 0;
  std::string reference;  // the product's one-hop test the ratios are over ("": none)
  int rows = 0;
  SampleStats gbps, cpu_per_gbit, p99_ms;  // valid rows
  // A native relay's own daemons (results.csv relay_cpu_s, relay_rss_kb): CPU-s per Gbit
  // moved and peak RSS in MB; none where no relay daemon was crossed (one hop, the baseline).
  SampleStats relay_cpu_per_gbit, relay_rss_mb;
  PairedEstimate gbps_ratio, cpu_ratio, p99_ratio;  // this test / the reference, round by round
};

// Product by product in the rows' order, hop counts ascending; empty without chains.
std::vector<HopCost> summarize_hop_costs(const std::vector<SampleRow>& rows);

// The relay's own cost under the table: "" when no row crossed a relay's daemons.
std::string relay_cost_lines(const std::vector<HopCost>& costs);
// "" when the run has no chain. Below it, where a product relays natively, the relay's own
// cost.
std::string hop_cost_table(const std::vector<SampleRow>& rows);
nlohmann::json hop_cost_json(const std::vector<SampleRow>& rows);
// The report's section: the table and each product's throughput and CPU-s/Gbit over one
// hop's by hop count (an empty table without chains).
KindSection hop_cost_section(const std::vector<SampleRow>& rows, const std::map<std::string, int>& color);

}  // namespace vpnlab
