// The latency a load adds (issue 50): the round trip through the path just before a
// throughput sample, and the loaded one above it. A TBF queue is latency the load adds
// by construction (a 256 KB queue at 50 Mbit/s holds 42 ms), so a bulk TCP flow through
// it must show tens of milliseconds added; the same flow on the unshaped veth, a small
// fraction of that. Real namespaces, real iperf3, the real probes.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "lab/record/results_csv.h"
#include "root_test_support.h"

namespace vpnlab::testing {
namespace {

// The baseline's rows of a run of quick.toml with `link_extra` on its link.
std::vector<SampleRow> baseline_rows(const std::string& scratch, const std::string& name,
                                     const std::string& link_extra) {
  std::string text = read_file(VPNLAB_TOPOLOGIES "/quick.toml");
  text.replace(text.find("mtu = 1500"), 10, "mtu = 1500" + link_extra);
  const std::string file = scratch + "/" + name + ".toml";
  std::ofstream(file) << text;
  auto run = vpnlab_cli(
      {"run", file, "--product", "baseline", "--samples", "3", "--duration", "2s", "--out", scratch + "/" + name});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  auto rows = read_results_csv(run_dir_in(scratch + "/" + name) + "/results.csv");
  EXPECT_TRUE(rows.ok()) << (rows.ok() ? "" : rows.error().format());
  return rows.ok() ? *rows : std::vector<SampleRow>{};
}

double median_of(std::vector<SampleRow> rows, double SampleRow::*field) {
  std::vector<double> v;
  for (const auto& r : rows) v.push_back(r.*field);
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

TEST(LoadLatency, AShapedQueueAddsTensOfMillisecondsAnUnshapedLinkAFractionOfIt) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string scratch = make_temp_dir("load-latency");
  auto shaped = baseline_rows(scratch, "shaped", "\nrate = \"50mbit\"");
  auto open = baseline_rows(scratch, "open", "");
  ASSERT_EQ(shaped.size(), 3u);
  ASSERT_EQ(open.size(), 3u);
  for (const auto* rows : {&shaped, &open})
    for (const auto& r : *rows) {
      EXPECT_TRUE(r.valid) << r.reason;
      EXPECT_GE(r.idle_probes, 10) << "about 20 idle echoes, 5 ms apart";
      EXPECT_NEAR(r.added_p50_ms, r.latency_p50_ms - r.idle_p50_ms, 0.002);
      EXPECT_NEAR(r.added_p99_ms, r.latency_p99_ms - r.idle_p50_ms, 0.002);
    }
  // The queue: at most 42 ms; TCP keeps it partly full, so its p99 sits well into it. The
  // idle round trip is taken with the queue drained.
  const double shaped_added = median_of(shaped, &SampleRow::added_p99_ms);
  EXPECT_GT(shaped_added, 10) << "a 42 ms TBF queue under a bulk flow";
  EXPECT_LT(median_of(shaped, &SampleRow::idle_p50_ms), shaped_added / 4) << "idle: the queue drained";
  EXPECT_LT(median_of(open, &SampleRow::added_p99_ms), shaped_added / 3) << "the unshaped veth queues far less";
}

}  // namespace
}  // namespace vpnlab::testing
