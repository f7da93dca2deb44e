// The spread whole runs show beyond their samples, learned from the history's comparable
// runs, and what it does to a comparison of two separate runs: checked by simulation of
// runs whose level moves from run to run (bench/run_spread_bench measured such a move here:
// 5.9 % for wireguard-go's Gbit/s, twice what a run's interval holds).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "lab/base/sequential.h"
#include "lab/history/run_spread.h"
#include "lab/record/metrics.h"
#include "lab/results/compare.h"

using namespace vpnlab;

namespace {

// One run's samples: a level of its own (log-normal around 1 with sd `run_sd`), then each
// sample log-normal around it with sd `sample_sd`.
std::vector<double> one_run(std::mt19937& rng, size_t n, double truth, double run_sd, double sample_sd) {
  std::normal_distribution<double> run_level(0, run_sd), sample(0, sample_sd);
  const double level = truth * std::exp(run_level(rng));
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(level * std::exp(sample(rng)));
  return v;
}

// A series of `runs` comparable runs as the history makes its points (lab/history/trend.cpp).
Trend history_of(std::mt19937& rng, size_t runs, size_t n, double run_sd, double sample_sd) {
  Trend t;
  t.product = "p", t.test = "t";
  for (size_t r = 0; r < runs; ++r) {
    const RatioInterval g = ratio_interval(one_run(rng, n, 1.0, run_sd, sample_sd), kTrendPointLevel);
    TrendPoint p;
    p.run_id = "h" + std::to_string(r), p.n = g.n, p.value = g.ratio, p.low = g.low, p.high = g.high;
    t.points.push_back(p);
  }
  return t;
}

std::vector<SampleRow> rows_of(const std::vector<double>& gbps) {
  std::vector<SampleRow> rows;
  for (size_t i = 0; i < gbps.size(); ++i) {
    SampleRow r;
    r.product = "p", r.test = "t", r.sample = static_cast<int>(i) + 1, r.gbps = gbps[i];
    r.valid = true, r.status = "ok";
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

// The estimate from a series: near the true between-run SD on average; none from too few
// runs; the runs being compared and the points before a change point are left out.
TEST(RunSpread, TheHistorysRunsGiveTheSpreadBeyondTheirSamples) {
  std::mt19937 rng(66);
  double mean_sd = 0;
  const int series = 400;
  for (int k = 0; k < series; ++k) mean_sd += run_spread_of(history_of(rng, 10, 8, 0.05, 0.03), {}).sd / series;
  EXPECT_NEAR(mean_sd, 0.05, 0.006) << "10 runs of 8 samples, 5 % between runs, 3 % within";
  double no_excess = 0;
  for (int k = 0; k < series; ++k) no_excess += run_spread_of(history_of(rng, 10, 8, 0.0, 0.03), {}).sd / series;
  EXPECT_LT(no_excess, 0.01) << "runs that differ only by their samples: (almost) nothing beyond";
  Trend t = history_of(rng, 5, 8, 0.05, 0.03);
  EXPECT_TRUE(run_spread_of(t, {}).known());
  const RunSpread without_two = run_spread_of(t, {"h0", "h1"});
  EXPECT_FALSE(without_two.known());
  EXPECT_EQ(without_two.runs, 3u);
  EXPECT_EQ(without_two.sd, 0.0);
  t.points[2].change_point = true;
  EXPECT_EQ(run_spread_of(t, {}).runs, 3u) << "the current level only";
}

// Two runs of one build, 5 % apart as whole runs (3 % sample noise, 8 samples each): the
// samples' intervals call them different far more often than 5 %; with the spread learned
// from the history's other runs added (the fewest it uses, 4, and 10), about 5 %. A true
// 20 % change is still found most of the time with 10.
TEST(RunSpread, AddedToTwoRunsComparisonItHoldsTheFalseAlarmsNearTheirLevel) {
  std::mt19937 rng(67);
  const Metric& gbps = metric_column("gbps");
  const int trials = 2000;
  for (size_t history_runs : {kRunSpreadMinRuns, size_t{10}}) {
    int plain_alarms = 0, widened_alarms = 0, found = 0;
    for (int k = 0; k < trials; ++k) {
      const RunSpread spread = run_spread_of(history_of(rng, history_runs, 8, 0.05, 0.03), {});
      ASSERT_TRUE(spread.known());
      Comparison c =
          compare_runs(rows_of(one_run(rng, 8, 1.0, 0.05, 0.03)), rows_of(one_run(rng, 8, 1.0, 0.05, 0.03))).front();
      plain_alarms += c.verdict != "no significant difference";
      add_between_run_spread(&c, spread.sd, spread.runs, gbps.better, gbps.worse);
      widened_alarms += c.verdict != "no significant difference";
      EXPECT_EQ(c.between_runs, spread.runs);
      Comparison slower =
          compare_runs(rows_of(one_run(rng, 8, 1.0, 0.05, 0.03)), rows_of(one_run(rng, 8, 0.8, 0.05, 0.03))).front();
      add_between_run_spread(&slower, spread.sd, spread.runs, gbps.better, gbps.worse);
      found += slower.verdict == "slower";
    }
    printf(
        "two runs of one build, 5 %% apart as runs, spread from %zu runs: called different in %.1f %% (samples "
        "only), %.1f %% (with the spread); a 20 %% slowdown found in %.1f %%\n",
        history_runs, 100.0 * plain_alarms / trials, 100.0 * widened_alarms / trials, 100.0 * found / trials);
    EXPECT_GT(plain_alarms, trials * 25 / 100) << "the samples alone cannot hold a move of the whole run";
    // 2000 trials: one standard error is 0.5 % at 5 %.
    EXPECT_LE(widened_alarms, trials * 75 / 1000) << history_runs << " runs";
    if (history_runs == 10) {
      EXPECT_GE(found, trials * 70 / 100);
    }
  }
}

// Widening keeps the comparison whole: the interval holds the old one, p and the verdict agree
// with it, nothing moves without a spread.
TEST(RunSpread, AWidenedComparisonStaysConsistent) {
  Comparison c;
  c.ratio = 0.90, c.ci_low = 0.86, c.ci_high = 0.94, c.level = 0.95, c.family = 1, c.p_value = 0.001;
  c.detectable = 0.05;
  Comparison same = c;
  add_between_run_spread(&same, 0, 4, "faster", "slower");
  EXPECT_EQ(same.ci_low, 0.86);
  EXPECT_EQ(same.between_run_sd, 0.0);
  EXPECT_EQ(same.between_runs, 4u) << "runs that differed no more than their samples: said, nothing added";
  add_between_run_spread(&c, 0.05, 9, "faster", "slower");
  EXPECT_LT(c.ci_low, 0.86);
  EXPECT_GT(c.ci_high, 0.94);
  EXPECT_GT(c.ci_high, 1.0) << "a 10 % move is within two runs 5 % apart each";
  EXPECT_EQ(c.verdict, "no significant difference");
  EXPECT_GT(c.p_value, 0.05);
  EXPECT_GT(c.detectable, 0.05);
  EXPECT_EQ(c.between_run_sd, 0.05);
  EXPECT_EQ(c.between_runs, 9u);
}
