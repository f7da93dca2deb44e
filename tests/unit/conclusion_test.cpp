// The answer at a glance: the run table fastest first within each test, and the closing
// lines naming the fastest and the cheapest tunnel over the runner-up, against golden files
// (regenerate with VPNLAB_UPDATE_GOLDEN=1 and review the difference).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>

#include "lab/base/fs_util.h"
#include "lab/results/conclusion.h"
#include "lab/results/paired.h"
#include "lab/results/power.h"
#include "lab/results/product_compare.h"
#include "lab/results/summary.h"

using namespace vpnlab;

namespace {

// Six rounds of a baseline and three tunnels in two tests, with known effects: in a-to-b
// nebula is 30 % faster than wireguard-go and openvpn half as fast; in b-to-a wireguard-go
// and nebula are alike. CPU-s/Gbit: wireguard-go the cheapest in both.
std::vector<SampleRow> six_rounds() {
  std::mt19937 rng(12);
  std::normal_distribution<double> noise(0, 0.02);
  struct P {
    const char* name;
    const char* cipher;
    double gbps_ab, gbps_ba, cpu;
  };
  const P products[] = {{"baseline", "none", 8.0, 8.0, 0.2},
                        {"wireguard-go", "ChaCha20-Poly1305", 0.30, 0.30, 5.0},
                        {"nebula", "AES-256-GCM", 0.39, 0.30, 6.5},
                        {"openvpn", "AES-128-GCM", 0.15, 0.16, 9.0}};
  std::vector<SampleRow> rows;
  for (int round = 1; round <= 6; ++round)
    for (const char* test : {"a-to-b", "b-to-a"})
      for (const P& p : products) {
        const double drift = 1 + 0.05 * std::sin(round);  // the machine: cancels within a round
        SampleRow r;
        r.run_id = "golden";
        r.product = p.name;
        r.cipher = p.cipher;
        r.test = test;
        r.sample = round;
        r.valid = true;
        r.status = "ok";
        r.duration_s = 2;
        r.gbps = (std::string(test) == "a-to-b" ? p.gbps_ab : p.gbps_ba) * drift * std::exp(noise(rng));
        r.cpu_s_per_gbit = p.cpu * std::exp(noise(rng));
        rows.push_back(r);
      }
  return rows;
}

void expect_golden(const std::string& name, const std::string& text) {
  const std::string path = std::string(VPNLAB_TEST_DATA) + "/conclusion/" + name;
  if (getenv("VPNLAB_UPDATE_GOLDEN")) {
    std::ofstream(path) << text;
    return;
  }
  EXPECT_EQ(text, read_file_text(path)) << "diff against " << path;
}

}  // namespace

TEST(Conclusion, TheTableIsFastestFirstWithinEachTest) {
  const auto rows = six_rounds();
  expect_golden("table-fastest.txt", summary_table(rows));
  expect_golden("table-file-order.txt", summary_table(rows, /*file_order=*/true));
  auto sorted = in_reading_order(summarize(rows), false);
  ASSERT_EQ(sorted.size(), 8u);
  EXPECT_EQ(sorted[0].product, "baseline");
  EXPECT_EQ(sorted[1].product, "nebula");
  EXPECT_EQ(sorted[3].product, "openvpn");
  EXPECT_EQ(sorted[4].test, "b-to-a") << "grouped by test, in the order the tests ran";
}

TEST(Conclusion, TheClosingLinesNameLeadersWithTheirIntervals) {
  const auto rows = six_rounds();
  auto cs = conclude(rows);
  ASSERT_EQ(cs.size(), 2u);
  ASSERT_EQ(cs[0].leaders.size(), 2u);
  const Leader& fastest = cs[0].leaders[0];
  EXPECT_EQ(fastest.product, "nebula");
  EXPECT_EQ(fastest.runner_up, "wireguard-go") << "the baseline is no contender";
  EXPECT_EQ(fastest.vs_runner_up.verdict, "faster");
  EXPECT_GT(fastest.vs_runner_up.ci_low, 1);
  EXPECT_EQ(fastest.vs_runner_up.family, 2u) << "the fastest lines of both tests are one family";
  EXPECT_EQ(cs[0].leaders[1].product, "wireguard-go");
  EXPECT_EQ(cs[0].leaders[1].vs_runner_up.verdict, "cheaper");
  // b-to-a: alike; whichever leads by its median, the line says they may be equal.
  EXPECT_EQ(cs[1].leaders[0].vs_runner_up.verdict, "no significant difference");
  expect_golden("conclusion.txt", conclusion_text(cs));
  // Every line's word agrees with its interval.
  for (const auto& c : cs)
    for (const auto& l : c.leaders) {
      const bool excludes = l.vs_runner_up.ci_low > 1 || l.vs_runner_up.ci_high < 1;
      EXPECT_EQ(leader_sentence(l).find(": significant") != std::string::npos, excludes) << leader_sentence(l);
    }
}

TEST(Conclusion, ALoneTunnelIsSaidOnceAndBaselinesAreNoContenders) {
  auto rows = six_rounds();
  std::erase_if(rows, [](const SampleRow& r) { return r.product == "nebula" || r.product == "openvpn"; });
  auto cs = conclude(rows);
  ASSERT_EQ(cs.size(), 2u);
  ASSERT_EQ(cs[0].leaders.size(), 1u);
  EXPECT_EQ(leader_sentence(cs[0].leaders[0]), "wireguard-go (the only tunnel with valid samples)");
  std::erase_if(rows, [](const SampleRow& r) { return r.product == "wireguard-go"; });
  EXPECT_TRUE(conclude(rows).empty());
  EXPECT_EQ(conclusion_text(conclude(rows)), "");
  EXPECT_EQ(tunnel_products(six_rounds()), (std::vector<std::string>{"wireguard-go", "nebula", "openvpn"}));
}

// Power before the run: the rank test's floor, and by simulation that a difference of the
// size promised is found about 80 % of the time (paired t: the noncentral t, exact on normal
// data; rank: the t-test's effect over the rank test's efficiency, an approximation).
TEST(Power, TheRankTestsFloorAndWhatSamplesCanResolve) {
  EXPECT_NEAR(min_rank_p(3), 0.1, 1e-12);
  EXPECT_NEAR(min_rank_p(4), 2.0 / 70, 1e-12);
  EXPECT_EQ(rank_samples_needed(1), 4);
  EXPECT_EQ(rank_samples_needed(4), 5) << "4 vs 4 cannot reach 0.05/4: the smallest p is 0.029";
  PlannedComparisons c;
  c.samples = 4;
  c.tests = 4;
  c.products = 1;
  c.tunnels = 1;
  std::string text = power_text(c, Spread{});
  EXPECT_NE(text.find("4 vs 4 samples cannot reach p < 0.05 after correcting for 4 comparisons (the smallest p at 4 vs "
                      "4 is 0.0286); 5 samples can"),
            std::string::npos)
      << text;
  c.samples = 1;
  c.tunnels = 2;
  EXPECT_NE(power_text(c, Spread{}).find("1 sample gives no interval at all"), std::string::npos);
}

TEST(Power, APromisedDifferenceIsFoundAboutFourTimesInFiveBySimulation) {
  std::mt19937 rng(80);
  for (int n : {4, 6, 10}) {
    const size_t family = 3;
    const double sd = 0.05;
    const double paired_effect = paired_detectable(n, family, sd * std::sqrt(2.0));
    const double rank_effect = rank_detectable(n, family, sd);
    std::normal_distribution<double> z(0, sd);
    int paired_found = 0, rank_found = 0;
    const int runs = 2000;
    for (int i = 0; i < runs; ++i) {
      std::vector<double> a, b, ra, rb;
      for (int k = 0; k < n; ++k) {
        a.push_back(std::exp(z(rng))), b.push_back((1 + paired_effect) * std::exp(z(rng)));
        ra.push_back(std::exp(z(rng))), rb.push_back((1 + rank_effect) * std::exp(z(rng)));
      }
      PairedEstimate e = paired_ratio(a, b, family_level(family));
      paired_found += e.ci_low > 1;
      rank_found += compare_samples(ra, rb, family_level(family)).ci_low > 1;
    }
    std::printf("n %d: paired %.1f %% found %.3f; rank %.1f %% found %.3f\n", n, 100 * paired_effect,
                paired_found / double(runs), 100 * rank_effect, rank_found / double(runs));
    EXPECT_NEAR(paired_found / double(runs), 0.8, 0.04) << n;
    if (n >= rank_samples_needed(family)) {
      EXPECT_NEAR(rank_found / double(runs), 0.8, 0.06)
          << n << ": the rank test's power is approximated (t-test's over its efficiency)";
    }
  }
}

TEST(Power, TheSpreadOfAnEarlierRun) {
  Spread s = spread_of(six_rounds(), "run X");
  EXPECT_NEAR(s.single, 0.05, 0.03) << "2 % noise plus the machine's 5 % drift";
  EXPECT_NEAR(s.paired, 0.028, 0.015) << "the drift cancels within a round: 2 % x sqrt 2";
  EXPECT_NE(s.source.find("from run X"), std::string::npos) << s.source;
  EXPECT_EQ(spread_of({}, "run Y").source, "a stated default: 5 % CV per sample");
}

// "May be equal" with a number to act on: at the spread seen, the rounds that would show the
// difference seen 80 % of the time (the detectable change shrinks as 1/sqrt(n)).
TEST(Conclusion, MayBeEqualSaysHowManyRoundsWouldSettleIt) {
  Comparison c;
  c.n_a = c.n_b = 4;
  c.ratio = 1.05;
  c.detectable = 0.2;
  c.verdict = "no significant difference";
  // 4 x (ln 1.2 / ln 1.05)^2 = 55.8
  EXPECT_EQ(rounds_to_settle(c), " (about 56 rounds would tell 1.050x from 1, 80 % of the time at this spread)");
  c.ratio = 1.001;
  EXPECT_EQ(rounds_to_settle(c), " (1.001x needs more than 1000 rounds to be told from 1 at this spread)");
  c.ratio = 1;
  EXPECT_EQ(rounds_to_settle(c), " (a ratio this close to 1: no number of rounds would tell it from 1)");
  c.detectable = 0;
  EXPECT_EQ(rounds_to_settle(c), "") << "not judged: no number";
}
