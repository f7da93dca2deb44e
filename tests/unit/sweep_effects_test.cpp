// The effects of a sweep's axes (lab/results/sweep_effects.h) on synthetic grids: an exact
// effect on one axis is found with the interval that holds it, an axis that does nothing is
// not called an effect, and the text and summary.json say the same.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lab/results/summary.h"
#include "lab/results/sweep_effects.h"

using namespace vpnlab;

namespace {

SampleRow grid_row(const std::string& product, const std::string& point, const std::string& test, int sample,
                   double gbps) {
  SampleRow r;
  r.run_id = "20261204-000000-test";
  r.product = product;
  r.sweep_of = "stream";
  r.point = point;
  r.test = test;
  r.sample = sample;
  r.status = "ok";
  r.valid = true;
  r.gbps = gbps;
  return r;
}

// streams 1/8 x underlay_mtu 1500/9000 for two products over 6 rounds. Each round has its
// own machine-wide factor (what pairing by round cancels) and each sample a noise of a few
// per cent; MTU 9000 doubles wireguard-go exactly and does nothing to the baseline; streams
// do nothing to either.
std::vector<SampleRow> grid() {
  std::vector<SampleRow> rows;
  const double noise[] = {0.013, -0.021, 0.008, 0.017, -0.011, -0.004, 0.019, -0.015, 0.002, -0.009, 0.012, -0.018};
  int k = 0;
  for (int s = 1; s <= 6; ++s) {
    const double round = 1 + 0.1 * std::sin(s);
    for (const char* mtu : {"1500", "9000"})
      for (const char* streams : {"1", "8"}) {
        const std::string point = std::string("streams=") + streams + ";underlay_mtu=" + mtu;
        const std::string test = std::string("stream-") + streams + "-" + mtu;
        const double wg = 1.5 * (std::string(mtu) == "9000" ? 2 : 1);
        rows.push_back(grid_row("baseline", point, test, s, 20 * round * (1 + noise[k++ % 12])));
        rows.push_back(grid_row("wireguard-go", point, test, s, wg * round * (1 + noise[k++ % 12])));
      }
  }
  return rows;
}

const SweepEffect* find(std::vector<SweepEffect>&&, const std::string&, const std::string&,
                        const std::string&) = delete;  // would dangle
const SweepEffect* find(const std::vector<SweepEffect>& effects, const std::string& product, const std::string& axis,
                        const std::string& held) {
  for (const auto& e : effects)
    if (e.c.product == product && e.axis == axis && e.held == held) return &e;
  return nullptr;
}

}  // namespace

TEST(SweepEffects, AnExactEffectIsFoundAndANullAxisIsNot) {
  const auto effects = sweep_effects(grid());
  // Per product: streams 1 -> 8 at each MTU, MTU 1500 -> 9000 at each stream count.
  ASSERT_EQ(effects.size(), 8u);
  for (const auto& e : effects) {
    EXPECT_EQ(e.c.family, 8u);
    EXPECT_EQ(e.c.n_a, 6u);
  }
  const SweepEffect* mtu = find(effects, "wireguard-go", "underlay_mtu", "streams=1");
  ASSERT_NE(mtu, nullptr);
  EXPECT_EQ(mtu->from, "1500");
  EXPECT_EQ(mtu->to, "9000");
  EXPECT_LT(mtu->c.ci_low, 2);
  EXPECT_GT(mtu->c.ci_high, 2);
  EXPECT_GT(mtu->c.ci_low, 1.8) << "the round factor cancels in the pair";
  EXPECT_EQ(mtu->c.verdict, "faster");
  const SweepEffect* base_mtu = find(effects, "baseline", "underlay_mtu", "streams=8");
  ASSERT_NE(base_mtu, nullptr);
  EXPECT_EQ(base_mtu->c.verdict, "no significant difference");
  for (const char* product : {"baseline", "wireguard-go"})
    for (const char* held : {"underlay_mtu=1500", "underlay_mtu=9000"}) {
      const SweepEffect* streams = find(effects, product, "streams", held);
      ASSERT_NE(streams, nullptr) << product << " " << held;
      EXPECT_EQ(streams->c.verdict, "no significant difference") << product << " " << held;
      EXPECT_LT(streams->c.ci_low, 1);
      EXPECT_GT(streams->c.ci_high, 1);
    }
}

TEST(SweepEffects, TheTextAndSummaryJsonSayTheSame) {
  const auto rows = grid();
  const std::string text = sweep_effects_text(sweep_effects(rows));
  EXPECT_NE(text.find("stream  underlay_mtu  1500 -> 9000  streams=1          wireguard-go  Gbit/s  "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Gbit/s: 8 intervals, each at 99.375 %"), std::string::npos) << text;
  EXPECT_NE(summary_table(rows).find(text), std::string::npos) << "the summary prints the table";
  const auto j = summary_json(rows)["effects"];
  ASSERT_EQ(j.size(), 8u);
  const auto effects = sweep_effects(rows);  // held: find() points into it
  const SweepEffect* mtu = find(effects, "wireguard-go", "underlay_mtu", "streams=1");
  bool found = false;
  for (const auto& e : j)
    if (e["product"] == "wireguard-go" && e["axis"] == "underlay_mtu" && e["held"] == "streams=1") {
      found = true;
      EXPECT_DOUBLE_EQ(e["ratio"].get<double>(), mtu->c.ratio);
      EXPECT_EQ(e["verdict"], "faster");
      EXPECT_EQ(e["family"], 8);
      // Each effect says what it could have seen, as compare's verdicts do (issue 49.5).
      ASSERT_TRUE(e["detectable"].is_number()) << e.dump();
      EXPECT_DOUBLE_EQ(e["detectable"].get<double>(), mtu->c.detectable);
    }
  EXPECT_TRUE(found);
  EXPECT_GT(mtu->c.detectable, 0);
  EXPECT_NE(text.find("ratio (interval)" + std::string(1, ' ')), std::string::npos);
  EXPECT_NE(text.find(" detects "), std::string::npos) << text;
  EXPECT_NE(text.find(" " + detectable_text(mtu->c) + " "), std::string::npos) << text;
  EXPECT_EQ(sweep_effects_text(sweep_effects({})), "") << "no sweep, no table";
}

TEST(SweepEffects, TransactionsAreJudgedPerSecondInTheirOwnFamily) {
  std::vector<SampleRow> rows = grid();
  for (int s = 1; s <= 4; ++s)
    for (const char* size : {"64", "1024"}) {
      SampleRow r = grid_row("wireguard-go", std::string("size=") + size, std::string("rr-") + size, s, 0.01);
      r.sweep_of = "rr";
      r.kind = "rr";
      r.tps = std::string(size) == "64" ? 1000 + s : 500 + s;
      rows.push_back(r);
    }
  const auto effects = sweep_effects(rows);
  ASSERT_EQ(effects.size(), 9u);
  const SweepEffect& rr = effects.back();
  EXPECT_EQ(rr.sweep, "rr");
  EXPECT_EQ(rr.unit, "tx/s");
  EXPECT_EQ(rr.c.family, 1u);
  EXPECT_NEAR(rr.c.ratio, 0.5, 0.01);
  EXPECT_EQ(rr.c.verdict, "slower");
  EXPECT_EQ(effects.front().c.family, 8u) << "Gbit/s effects stay one family of 8";
}

// Coverage by simulation: 400 runs of the grid with log-normal sample noise (5 %) and a
// round factor (10 %); in at least 95 % of them every one of the family's 8 intervals holds
// its true ratio at once (Bonferroni asks no less; 93 % leaves room for 400 runs' chance).
TEST(SweepEffects, AFamilyCoversItsTrueRatiosTogether) {
  std::mt19937 rng(20261204);
  std::normal_distribution<double> sample_noise(0, 0.05), round_noise(0, 0.10);
  int all_covered = 0;
  const int runs = 400;
  for (int run = 0; run < runs; ++run) {
    std::vector<SampleRow> rows;
    for (int s = 1; s <= 6; ++s) {
      const double round = std::exp(round_noise(rng));
      for (const char* mtu : {"1500", "9000"})
        for (const char* streams : {"1", "8"}) {
          const std::string point = std::string("streams=") + streams + ";underlay_mtu=" + mtu;
          const std::string test = std::string("stream-") + streams + "-" + mtu;
          const double wg = 1.5 * (std::string(mtu) == "9000" ? 2 : 1);
          rows.push_back(grid_row("baseline", point, test, s, 20 * round * std::exp(sample_noise(rng))));
          rows.push_back(grid_row("wireguard-go", point, test, s, wg * round * std::exp(sample_noise(rng))));
        }
    }
    bool covered = true;
    for (const auto& e : sweep_effects(rows)) {
      const double truth = e.c.product == "wireguard-go" && e.axis == "underlay_mtu" ? 2 : 1;
      covered = covered && e.c.ci_low <= truth && truth <= e.c.ci_high;
    }
    all_covered += covered ? 1 : 0;
  }
  std::printf("a family of 8 effects covered together in %d of %d simulated runs\n", all_covered, runs);
  EXPECT_GE(all_covered, runs * 93 / 100);
}
