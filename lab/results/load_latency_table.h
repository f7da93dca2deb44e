// The latency a load adds, per product x throughput test: the round trip through the path
// just before each sample (idle) and during its load (ICMP every 10 ms), and the loaded
// p99 above the idle median, each a median over the valid samples with its 95 % interval.
// A tunnel that queues inside itself (one crypto queue per peer, many flows in one) shows
// here what its Gbit/s hides.
#pragma once
#include <string>
#include <vector>

#include "lab/base/stats.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

struct LoadLatencySummary {
  std::string product, test;
  SampleStats idle_p50_ms, loaded_p50_ms, loaded_p99_ms, added_p99_ms;  // valid throughput rows with idle probes
};

std::vector<LoadLatencySummary> summarize_load_latency(const std::vector<SampleRow>& rows);

// "" when no row measured it (runs before it existed, backends without probes).
std::string load_latency_table(const std::vector<SampleRow>& rows);

}  // namespace vpnlab
