// A short real batch: baseline and wireguard-go over real namespaces with real iperf3.
#include <sys/stat.h>

#include <fstream>

#include <algorithm>

#include "lab/model/product_spec.h"
#include "lab/record/results_csv.h"
#include "lab/run/runner.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {
double median_of(const std::vector<SampleRow>& rows, const std::string& product) {
  std::vector<double> v;
  for (const auto& r : rows)
    if (r.product == product) v.push_back(r.gbps);
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
}  // namespace

TEST(Bench, BaselineAndWireguardGoOnTwoNodes) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  VPNLAB_REQUIRE_PROGRAM("wg");
  ShortRun run = short_run({"baseline", "wireguard-go"}, VPNLAB_PRODUCTS_DIR, 2);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  const RunReport& report = run.report.value();
  ASSERT_EQ(report.rows.size(), 4u);
  for (const auto& r : report.rows) {
    EXPECT_EQ(r.status, "ok") << r.product << ": " << r.reason;
    EXPECT_TRUE(r.valid) << r.product << ": " << r.reason;
    EXPECT_GT(r.gbps, 0.01) << r.product;
  }
  for (const auto& p : report.products)
    EXPECT_TRUE(p.leftovers.empty()) << p.product << " left " << p.leftovers.front();
  EXPECT_LT(median_of(report.rows, "wireguard-go"), median_of(report.rows, "baseline"));

  auto csv = read_results_csv(run.run_dir + "/results.csv");
  ASSERT_TRUE(csv.ok());
  ASSERT_EQ(csv->size(), 4u);
  // Interleaved by default: round 1 of both products, then round 2.
  std::string order;
  for (const auto& r : *csv) order += r.product + ":" + std::to_string(r.sample) + " ";
  EXPECT_EQ(order, "baseline:1 wireguard-go:1 baseline:2 wireguard-go:2 ");
  struct stat st {};
  ASSERT_EQ(stat((run.run_dir + "/secrets").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

TEST(Bench, AProductThatCannotComeUpIsReportedAndTheRunGoesOn) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  // A product whose daemon exits at once: readiness fails with its log tail.
  std::string products = make_temp_dir("broken");
  std::string cmd = "cp -r " VPNLAB_PRODUCTS_DIR "/baseline " + products + "/";
  ASSERT_EQ(system(cmd.c_str()), 0);
  mkdir((products + "/broken").c_str(), 0755);
  std::ofstream(products + "/broken/product.toml") << R"(name = "broken"
cipher = "none"
interface = "tun9"
binaries = ["sh"]
[[step]]
daemon = ["sh", "-c", "echo broken daemon says goodbye; exit 3"]
[ready]
timeout = "1s"
)";
  ShortRun run = short_run({"broken", "baseline"}, products);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  const RunReport& report = run.report.value();
  ASSERT_EQ(report.products.size(), 2u);
  EXPECT_FALSE(report.products[0].started);
  EXPECT_NE(report.products[0].failure.find("broken daemon says goodbye"), std::string::npos)
      << report.products[0].failure;
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_EQ(report.rows[0].status, "failed");
  EXPECT_EQ(report.rows[1].product, "baseline");
  EXPECT_EQ(report.rows[1].status, "ok");
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

TEST(Bench, ADaemonThatDiesMidRunFailsItsSamplesAndTheNextProductRuns) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  VPNLAB_REQUIRE_PROGRAM("timeout");
  // wireguard-go that is ended after 3 s: up and ready, then gone in the middle of the samples.
  std::string products = product_variant("wireguard-go", "wg-dies", "daemon = [\"wireguard-go\", \"{{interface}}\"]",
                                         "daemon = [\"timeout\", \"3\", \"wireguard-go\", \"{{interface}}\"]");
  std::string cmd = "cp -r " VPNLAB_PRODUCTS_DIR "/baseline " + products + "/";
  ASSERT_EQ(system(cmd.c_str()), 0);
  // Sequential: one bring-up carries all six samples, so the daemon dies among them.
  ShortRun run = short_run({"wg-dies", "baseline"}, products, 6, VPNLAB_TOPOLOGIES "/quick.toml", false);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  int failed = 0, baseline_ok = 0;
  std::string reasons;
  for (const auto& r : run.report->rows) {
    if (r.product == "wg-dies" && r.status == "failed") {
      ++failed;
      reasons += r.reason + "\n";
    }
    if (r.product == "baseline" && r.status == "ok") ++baseline_ok;
  }
  EXPECT_GE(failed, 1) << "some samples must fail once the daemon is gone";
  EXPECT_NE(reasons.find("died"), std::string::npos) << reasons;
  EXPECT_EQ(baseline_ok, 6) << "the next product runs as usual";
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

// Interleaved rounds bring every product up anew: tools that refuse to overwrite what an
// earlier round made (nebula-cert's CA) must still work, and each round keeps its logs.
TEST(Bench, EveryRoundBringsTheProductUpAnew) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("nebula");
  VPNLAB_REQUIRE_PROGRAM("nebula-cert");
  ShortRun run = short_run({"baseline", "nebula"}, VPNLAB_PRODUCTS_DIR, 3);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 6u);
  for (const auto& r : run.report->rows)
    EXPECT_TRUE(r.valid) << r.product << " sample " << r.sample << ": " << r.reason;
  for (int round = 1; round <= 3; ++round) {
    struct stat st {};
    EXPECT_EQ(stat((run.run_dir + "/logs/nebula/round-" + std::to_string(round)).c_str(), &st), 0) << "round " << round;
  }
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}
