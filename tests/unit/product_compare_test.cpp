// `vpnlab compare`: the paired statistics against known values, and synthetic runs with
// known effects (rows of two products in the same rounds).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lab/app/run_compare.h"
#include "lab/app/run_diff.h"
#include "lab/base/sequential.h"
#include "lab/base/stats.h"
#include "lab/base/tbf.h"
#include "lab/results/link_ceiling.h"
#include "lab/results/paired.h"
#include "lab/results/power.h"
#include "lab/results/product_compare.h"
#include "lab/results/report_pairwise.h"

using namespace vpnlab;

namespace {

// Rounds of a and b: each round's machine state (drift) is shared by both products.
std::vector<SampleRow> paired_rows(std::mt19937& rng, int rounds, double ratio, double noise, double drift) {
  std::normal_distribution<double> z(0, 1);
  std::vector<SampleRow> rows;
  for (int i = 1; i <= rounds; ++i) {
    double machine = std::exp(drift * z(rng));
    for (const auto& [product, median] : {std::pair<std::string, double>{"wireguard-go", 1.0}, {"nebula", ratio}}) {
      SampleRow r;
      r.run_id = "r1";
      r.product = product;
      r.test = "a-to-c";
      r.sample = i;
      r.status = "ok";
      r.valid = true;
      r.gbps = median * machine * std::exp(noise * z(rng));
      r.cpu_s_per_gbit = 2.0 / r.gbps * std::exp(noise * z(rng));
      r.daemon_rss_kb = product == "nebula" ? 30000 : 12000;
      r.latency_probes = 100;
      r.latency_p99_ms = 1.0 * std::exp(noise * z(rng));
      rows.push_back(r);
    }
  }
  return rows;
}

const Comparison& find(const std::vector<Comparison>& cs, const std::string& metric) {
  for (const auto& c : cs)
    if (c.metric == metric) return c;
  throw std::runtime_error("no " + metric);
}

}  // namespace

TEST(Paired, TTestOfTheLogRatios) {
  EXPECT_NEAR(t_two_sided_p(2.262157, 9), 0.05, 1e-4);  // published t table: t(0.975, 9)
  EXPECT_NEAR(t_two_sided_p(-2.262157, 9), 0.05, 1e-4);
  EXPECT_NEAR(t_two_sided_p(0, 5), 1.0, 1e-12);
  // Ratios 1.1 and 1.3 (logs symmetric around log 1.1958): mean log, sd and t by hand.
  auto e = paired_ratio({1, 1}, {1.1, 1.3});
  EXPECT_NEAR(e.ratio, std::sqrt(1.1 * 1.3), 1e-12);
  double sd = std::fabs(std::log(1.3) - std::log(1.1)) / std::sqrt(2.0);
  double t = std::log(e.ratio) / (sd / std::sqrt(2.0));
  EXPECT_NEAR(e.p_value, t_two_sided_p(t, 1), 1e-12);
  EXPECT_NEAR(e.ci_high, std::exp(std::log(e.ratio) + 12.7062 * sd / std::sqrt(2.0)), 1e-3 * e.ci_high);
}

TEST(Paired, RatioAndIntervalOfExactPairs) {
  auto e = paired_ratio({1, 2, 4, 8, 16, 32}, {1.2, 2.4, 4.8, 9.6, 19.2, 38.4});
  EXPECT_EQ(e.n, 6u);
  EXPECT_NEAR(e.ratio, 1.2, 1e-9);
  EXPECT_NEAR(e.ci_low, 1.2, 1e-9);
  EXPECT_NEAR(e.ci_high, 1.2, 1e-9);
  EXPECT_EQ(e.p_value, 0);
  // A pair with a missing value (0) is left out.
  EXPECT_EQ(paired_ratio({1, 0, 2}, {1.1, 1, 2.2}).n, 2u);
}

TEST(Paired, CoverageOfTheIntervalOnSimulatedRuns) {
  std::mt19937 rng(7);
  int covered = 0;
  const int runs = 400;
  for (int k = 0; k < runs; ++k) {
    auto rows = paired_rows(rng, 10, 1.1, 0.05, 0.2);
    auto c = find(compare_products(rows, {{"wireguard-go", "nebula"}}), "gbps");
    if (c.ci_low <= 1.1 && 1.1 <= c.ci_high) ++covered;
  }
  EXPECT_GE(covered, runs * 0.92) << covered;  // 95 % nominal
}

TEST(Compare, KnownTwentyPercentEffectIsFoundDespiteDrift) {
  std::mt19937 rng(3);
  // Machine drift (20 %) far larger than the products' own noise (3 %): pairing cancels it.
  auto rows = paired_rows(rng, 10, 1.2, 0.03, 0.2);
  auto cs = compare_products(rows, {{"wireguard-go", "nebula"}});
  const Comparison& g = find(cs, "gbps");
  EXPECT_EQ(g.verdict, "faster");
  EXPECT_NEAR(g.ratio, 1.2, 0.05);
  EXPECT_LT(g.ci_low, 1.2);
  EXPECT_GT(g.ci_high, 1.2);
  EXPECT_GT(g.ci_low, 1.0);
  EXPECT_EQ(find(cs, "cpu_s_per_gbit").verdict, "cheaper");
  EXPECT_EQ(find(cs, "daemon_rss_kb").verdict, "larger");
  EXPECT_NEAR(find(cs, "daemon_rss_kb").ratio, 2.5, 1e-9);
  std::string text = product_comparison_text(cs, "wireguard-go", "nebula");
  EXPECT_NE(text.find("nebula faster (+"), std::string::npos) << text;
  EXPECT_NE(text.find("A/B (interval)"), std::string::npos) << text;
  EXPECT_NE(text.find("each metric's comparisons are corrected together"), std::string::npos) << text;
}

TEST(Compare, FiveRoundsAreEnoughForAClearEffect) {
  std::mt19937 rng(4);
  auto rows = paired_rows(rng, 5, 1.2, 0.03, 0.2);
  EXPECT_EQ(find(compare_products(rows, {{"wireguard-go", "nebula"}}), "gbps").verdict, "faster");
}

TEST(Compare, SameProductTwiceIsNoDifference) {
  std::mt19937 rng(11);
  int differences = 0;
  for (int k = 0; k < 50; ++k) {
    auto rows = paired_rows(rng, 10, 1.0, 0.05, 0.2);
    if (find(compare_products(rows, {{"wireguard-go", "nebula"}}), "gbps").verdict != "no significant difference")
      ++differences;
  }
  EXPECT_LE(differences, 5);  // 5 % false alarms expected: 2.5 of 50
}

TEST(Compare, TooFewRoundsAndMissingProductsAreSaid) {
  std::mt19937 rng(5);
  auto rows = paired_rows(rng, 1, 1.2, 0.03, 0.0);
  auto c = find(compare_products(rows, {{"wireguard-go", "nebula"}}), "gbps");
  EXPECT_EQ(c.verdict, "not comparable: fewer than 2 rounds where both are valid");
  EXPECT_EQ(check_vs_product(rows, "tinc", "r/results.csv").error().where_and_what(),
            "r/results.csv has no rows of product 'tinc'");
  // The baseline has no daemon: no RSS comparison against it.
  auto more = paired_rows(rng, 6, 1.2, 0.03, 0.0);
  for (auto& r : more)
    if (r.product == "wireguard-go") r.product = "baseline", r.daemon_rss_kb = 0;
  auto cs = compare_products(more, {{"baseline", "nebula"}});
  EXPECT_TRUE(std::none_of(cs.begin(), cs.end(), [](const Comparison& x) { return x.metric == "daemon_rss_kb"; }));
}

TEST(Compare, VsBlockAndReportSection) {
  std::mt19937 rng(9);
  auto rows = paired_rows(rng, 8, 1.2, 0.03, 0.1);
  std::string block = vs_block(rows, "wireguard-go");
  EXPECT_NE(block.find("vs wireguard-go"), std::string::npos) << block;
  EXPECT_NE(block.find("nebula"), std::string::npos) << block;
  EXPECT_NE(block.find(" faster"), std::string::npos) << block;
  auto section = pairwise_section(rows, "");
  EXPECT_EQ(section.reference, "wireguard-go");
  ASSERT_EQ(section.rows.size(), 2u);
  ASSERT_EQ(section.gbps_bars["a-to-c"].size(), 1u);
  EXPECT_EQ(section.gbps_bars["a-to-c"][0].label, "nebula");
}

TEST(LinkCeiling, ShareOfTheRateAndHeaderCeiling) {
  EXPECT_NEAR(payload_ceiling_bps(500e6, 1448, 1500), 500e6 * 1448 / 1514, 1e-6);
  TbfParams tbf = tbf_params(500e6, 1500);
  EXPECT_EQ(tbf.rate_bytes_per_s, 62500000);
  EXPECT_EQ(tbf.burst_bytes, 250000);   // 4 ms at the rate
  EXPECT_EQ(tbf.limit_bytes, 1250000);  // 20 ms at the rate
  EXPECT_EQ(tbf_params(10e6, 1500).burst_bytes, 65536 + 1500);
  nlohmann::json env = {
      {"overlay", {{"mtu", 1420}}},
      {"shaped_links",
       {{{"link", "wan"}, {"rate_bps", 500e6}, {"burst_bytes", 250000}, {"limit_bytes", 1250000}, {"mtu", 1500}}}},
      {"test_links", {{"a-to-b", {"wan"}}}},
      {"products",
       {{"baseline", {{"tunnel", false}, {"overhead_bytes", 0}}},
        {"wireguard-go", {{"tunnel", true}, {"overhead_bytes", 60}}}}}};
  std::vector<SampleRow> rows;
  for (const auto& [product, mbit] : {std::pair<std::string, double>{"baseline", 470}, {"wireguard-go", 360}}) {
    SampleRow r;
    r.product = product;
    r.test = "a-to-b";
    r.sample = 1;
    r.status = "ok";
    r.valid = true;
    r.direction = "forward";
    r.gbps = mbit / 1000;
    r.retransmits = product == "baseline" ? 200 : 3000;
    rows.push_back(r);
  }
  auto shares = link_shares(rows, env);
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_NEAR(shares[0].ceiling_bps, 500e6 * 1448 / 1514, 1);              // baseline: MTU 1500, no overhead
  EXPECT_NEAR(shares[1].ceiling_bps, 500e6 * 1368 / (1420 + 60 + 14), 1);  // 457.8 Mbit/s
  std::string text = link_share_text(shares);
  EXPECT_NE(text.find("shaped link 'wan': 500.0 Mbit/s (TBF: burst 250000 B, queue limit 1250000 B"), std::string::npos)
      << text;
  EXPECT_NE(text.find("wireguard-go         a-to-b             360.0   72.0 % 457.8 (MTU 1420, +60 B)     78.6 %"),
            std::string::npos)
      << text;
  // 78.6 % of its ceiling with 15x the baseline's retransmits: flagged, the cause not claimed.
  ASSERT_EQ(link_share_warnings(shares).size(), 1u);
  EXPECT_EQ(link_share_warnings(shares)[0].rfind(
                "wireguard-go / a-to-b: 79 % of what its headers allow on 'wan', not generator-bound, with 3000 TCP "
                "retransmits per sample (baseline 200). The lab cannot tell the cause",
                0),
            0u)
      << link_share_warnings(shares)[0];
  EXPECT_NE(text.find("! wireguard-go / a-to-b: 79 %"), std::string::npos) << text;
  rows[1].generator_cpu_pct = 95;
  EXPECT_TRUE(link_share_warnings(link_shares(rows, env)).empty()) << "generator-bound: the generator may be the cause";
  rows[1].generator_cpu_pct = 0;
  rows[1].gbps = 0.45;
  EXPECT_TRUE(link_share_warnings(link_shares(rows, env)).empty()) << "98 % of its ceiling: nothing lost that matters";
  // No shaped link crossed: nothing to say.
  env["test_links"]["a-to-b"] = {"lan"};
  EXPECT_TRUE(link_shares(rows, env).empty());
}

TEST(DiffProvenance, DifferencesAreStatedAndTopologyOrPinningRefuse) {
  nlohmann::json a = {
      {"topology_sha256", "aa"},
      {"pinning", {{"a", {{"cpus", {0}}, {"load_cpus", {0}}}}, {"c", {{"cpus", {1}}, {"load_cpus", {1}}}}}},
      {"overlay", {{"mtu", 1420}}},
      {"kernel", {{"release", "6.1"}}}};
  nlohmann::json b = a;
  EXPECT_TRUE(provenance_differences(a, b).empty());
  EXPECT_EQ(provenance_text({}),
            "provenance: same topology, pinning, MTU, order, CPU, kernel and vpnlab version in both runs\n");
  b["pinning"]["c"]["cpus"] = {0};
  b["overlay"]["mtu"] = 1380;
  b["topology_sha256"] = "bb";
  auto d = provenance_differences(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].what, "topology (sha256 of the file)");
  EXPECT_TRUE(d[0].refuses);
  EXPECT_EQ(d[1].a, "a 0, c 1");
  EXPECT_EQ(d[1].b, "a 0, c 0 (load 1)");
  EXPECT_TRUE(d[1].refuses);
  EXPECT_FALSE(d[2].refuses);  // MTU: said, not refused
  EXPECT_NE(provenance_text(d).find("  overlay MTU: A '1420', B '1380'\n"), std::string::npos) << provenance_text(d);
  // Recorded on one side only (an older run): said, not refused.
  b = a;
  b.erase("topology_sha256");
  d = provenance_differences(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].b, "not recorded");
  EXPECT_FALSE(d[0].refuses);
  // Pinning recorded on one side only: shown, not refused.
  b = a;
  b.erase("pinning");
  d = provenance_differences(b, a);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].a, "not recorded");
  EXPECT_EQ(d[0].b, "a 0, c 1");
  EXPECT_FALSE(d[0].refuses);
}

// Two runs over an impaired link: what each path achieved is said where it really differed
// (beyond 10 % + 1 ms of round trip, loss intervals apart, order kept by one only), never
// refused, and not said for the noise of two measurements.
TEST(DiffProvenance, AchievedPathsAreSaidWhereTheyReallyDiffer) {
  auto path = [](double rtt, double loss, double low, double high, int reordered) {
    return nlohmann::json{{"rtt_p50_ms", rtt},
                          {"loss_pct", loss},
                          {"loss_low_pct", low},
                          {"loss_high_pct", high},
                          {"reordered", reordered}};
  };
  nlohmann::json a = {{"achieved_paths", {{"lan", path(20.7, 2.2, 0.87, 4.5, 0)}}}};
  nlohmann::json b = {{"achieved_paths", {{"lan", path(21.4, 1.6, 0.5, 3.7, 0)}}}};
  EXPECT_TRUE(provenance_differences(a, b).empty()) << provenance_text(provenance_differences(a, b));
  b["achieved_paths"]["lan"] = path(56.9, 0.2, 0.01, 1.5, 0);
  auto d = provenance_differences(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(
      provenance_text(d),
      "provenance: the runs differ in\n  impaired links as achieved (median round trip, loss with its 99 % interval): "
      "A 'lan 20.7 ms, loss 2.20 % (0.87-4.50), 0 reordered', B 'lan 56.9 ms, loss 0.20 % (0.01-1.50), 0 reordered'\n");
  EXPECT_FALSE(d[0].refuses);
  b["achieved_paths"]["lan"] = path(20.7, 2.2, 0.87, 4.5, 246);
  EXPECT_EQ(provenance_differences(a, b).size(), 1u) << "one kept order, the other did not";
  b["achieved_paths"]["lan"] = {{"not_measured", "vm backend has no echo probe"}};
  ASSERT_EQ(provenance_differences(a, b).size(), 1u);
  EXPECT_EQ(provenance_differences(a, b)[0].b, "lan not measured");
  // Measured values are not part of the comparability key: two runs stay comparable.
  EXPECT_EQ(comparability_key(a), comparability_key(b));
}

// Every verdict carries what it could have seen (issue 49.5): the detectable change printed
// beside a paired comparison is the one it finds 80 % of the time. Rounds of two products
// with independent noise `noise` each (the log ratio's spread is noise x sqrt 2), the second
// truly faster by the detectable change at that spread: judged as `compare` judges.
TEST(Compare, ThePrintedDetectableChangeIsFoundEightyPercentOfTheTimeInSimulation) {
  std::mt19937 rng(21);
  for (const auto& [rounds, noise] : std::vector<std::pair<int, double>>{{4, 0.03}, {8, 0.08}}) {
    const double change = paired_detectable_at(rounds, 0.95, noise * std::sqrt(2.0));
    ASSERT_GT(change, 0);
    const int trials = 3000;
    int found = 0;
    for (int k = 0; k < trials; ++k) {
      auto rows = paired_rows(rng, rounds, 1 + change, noise, 0.2);
      found += compare_in_family(rows, {{"wireguard-go", "nebula", "a-to-c"}}, throughput_metric()).front().verdict ==
               "faster";
    }
    // 3000 trials: 80 % +- 0.73 % (one standard error); 2.5 % is over three.
    EXPECT_NEAR(static_cast<double>(found) / trials, 0.80, 0.025)
        << rounds << " rounds, noise " << noise << ": change " << change;
  }
}

TEST(Compare, EachComparisonSaysWhatItDetectsAtItsOwnNoise) {
  std::mt19937 rng(22);
  auto rows = paired_rows(rng, 6, 1.0, 0.05, 0.2);
  auto cs = compare_products(rows, {{"wireguard-go", "nebula"}});
  const Comparison& g = find(cs, "gbps");
  std::vector<double> a, b, logs;
  auto gbps = [](const SampleRow& r) { return r.gbps; };
  pair_rounds(values_by_round(rows, "wireguard-go", "a-to-c", gbps), values_by_round(rows, "nebula", "a-to-c", gbps),
              &a, &b);
  for (size_t i = 0; i < a.size(); ++i) logs.push_back(std::log(b[i] / a[i]));
  EXPECT_NEAR(g.detectable, paired_detectable_at(6, g.level, describe(logs).stdev), 1e-12);
  // Noisier pairs detect less; the text prints it beside the verdict.
  auto noisy = find(compare_products(paired_rows(rng, 6, 1.0, 0.25, 0.2), {{"wireguard-go", "nebula"}}), "gbps");
  EXPECT_GT(noisy.detectable, g.detectable);
  const std::string text = product_comparison_text(cs, "wireguard-go", "nebula");
  EXPECT_NE(text.find("detects"), std::string::npos) << text;
  EXPECT_NE(text.find(" " + detectable_text(g) + "  "), std::string::npos) << text;
  EXPECT_NE(text.find("detects: the smallest change (either way) this comparison finds 80 % of the time at its own "
                      "noise and level"),
            std::string::npos)
      << text;
  // One round: nothing to detect with, said as "-".
  auto one = find(compare_products(paired_rows(rng, 1, 1.0, 0.05, 0.0), {{"wireguard-go", "nebula"}}), "gbps");
  EXPECT_EQ(detectable_text(one), "-");
}
