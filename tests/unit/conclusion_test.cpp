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
