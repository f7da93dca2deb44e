// The adaptive-sampling stopping rule (lab/base/sequential.h) on simulated runs: its final
// interval keeps its coverage although the rule peeks at the data, it stops early when the
// noise is low, and it honours the time limit.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <random>

#include "lab/base/sequential.h"

namespace vpnlab {
namespace {

TEST(Sequential, StudentQuantilesMatchTheTables) {
  EXPECT_NEAR(t_quantile(0.95, 1), 12.706, 0.001);
  EXPECT_NEAR(t_quantile(0.95, 2), 4.303, 0.001);
  EXPECT_NEAR(t_quantile(0.95, 3), 3.182, 0.001);
  EXPECT_NEAR(t_quantile(0.95, 10), 2.228, 0.001);
  EXPECT_NEAR(t_quantile(0.99, 5), 4.032, 0.001);
  EXPECT_NEAR(t_quantile(0.99, 30), 2.750, 0.001);
}

// The first look, the level of each look, and the rounds a spread asks for: at ±5 % and
// the quick topology's quiet spread (log sd 0.047) t(4) at 97.5 % = 3.495 gives ±7.6 % at 5
// rounds, and ±4.9 % at 8 (t(7) = 2.841).
TEST(Sequential, TheFirstLookAndTheRoundsASpreadAsksFor) {
  SequentialPlan p;
  p.target = 0.05;
  p.min_rounds = 5;
  p.max_rounds = 34;
  EXPECT_EQ(p.first_look(), 5);
  EXPECT_NEAR(p.confidence(), 0.975, 1e-12);
  EXPECT_EQ(p.rounds_needed(0.047), 8);
  EXPECT_EQ(p.rounds_needed(0.0), 5) << "never before the first look";
  EXPECT_EQ(p.rounds_needed(1e300), 10000);
  p.max_rounds = 3;  // fewer rounds allowed than the first look: it comes forward
  EXPECT_EQ(p.first_look(), 3);
  p.min_rounds = 1;  // a spread needs two
  EXPECT_EQ(p.first_look(), 2);
}

// One simulated adaptive run of `series` paired-ratio series with noise `draw` (log scale)
// around `truth`, each stopping on its own as the runner's are (look_at_series): a series
// met at a look takes no more rounds. Per series: the rounds it took and whether its final
// interval holds the truth.
struct Simulated {
  std::vector<int> rounds;
  std::vector<bool> covered;
};

template <typename Draw>
Simulated simulate(std::mt19937& rng, const SequentialPlan& plan, double truth, Draw draw, int series = 1) {
  std::vector<std::vector<double>> ratios(series);
  std::vector<SeriesLook> state;
  for (int round = 1; round <= plan.max_rounds; ++round) {
    for (int k = 0; k < series; ++k)
      if (state.empty() || !state[k].met) ratios[k].push_back(truth * std::exp(draw(rng)));
    look_at_series(plan, ratios, &state);
    if (std::all_of(state.begin(), state.end(), [](const SeriesLook& l) { return l.met; })) break;
  }
  Simulated s;
  for (const auto& r : ratios) {
    RatioInterval i = ratio_interval(r, plan.confidence());
    s.rounds.push_back(static_cast<int>(r.size()));
    s.covered.push_back(i.low <= truth && truth <= i.high);
  }
  return s;
}

Simulated simulate(std::mt19937& rng, const SequentialPlan& plan, double truth, double sigma, int series = 1) {
  std::normal_distribution<double> noise(0, sigma);
  return simulate(
      rng, plan, truth, [&](std::mt19937& g) { return noise(g); }, series);
}

// Looking after every round and stopping at the first interval within the target favours
// intervals that happen to look narrow; each at 97.5 % makes up for it. Checked where it
// matters: spreads from quiet to where the round limit often comes first, at ±5 % within 34
// rounds (the quick topology's budget) and ±2 % within 100, and in three shapes with the
// same log sd (issue 66's rounds): normal; Student t with 3 degrees of freedom (heavy
// tails); one round in ten 2.5 times as spread as the rest (a disturbed sample).
TEST(Sequential, TheFinalIntervalKeepsItsCoverageDespiteLookingEveryRound) {
  std::mt19937 rng(20261207);
  struct Case {
    double target;
    int max_rounds;
    std::vector<double> sigmas;
  };
  for (const Case& c : {Case{0.05, 34, {0.03, 0.065, 0.1}}, Case{0.02, 100, {0.02, 0.045}}}) {
    SequentialPlan plan;
    plan.target = c.target;
    plan.min_rounds = 5;
    plan.max_rounds = c.max_rounds;
    for (double sigma : c.sigmas) {
      std::normal_distribution<double> normal(0, sigma);
      std::student_t_distribution<double> heavy(3);
      std::bernoulli_distribution outlier(0.1);
      std::normal_distribution<double> unit(0, 1);
      const std::function<double(std::mt19937&)> shapes[] = {
          [&](std::mt19937& g) { return normal(g); },
          [&](std::mt19937& g) { return heavy(g) * sigma / std::sqrt(3.0); },
          [&](std::mt19937& g) { return unit(g) * sigma * (outlier(g) ? 2.5 : 1 / 1.28); }};
      const char* names[] = {"normal", "t(3)", "outlier rounds"};
      for (int shape = 0; shape < 3; ++shape) {
        int covered = 0, intervals = 0;
        double rounds = 0;
        for (int i = 0; i < 1500; ++i) {
          Simulated s = simulate(rng, plan, 0.04, shapes[shape], 2);
          for (size_t k = 0; k < s.covered.size(); ++k, ++intervals) {
            covered += s.covered[k];
            rounds += s.rounds[k];
          }
        }
        // 3000 intervals: a true 95 % reads 94.0 % or more 99 times in 100.
        EXPECT_GE(covered, intervals * 940 / 1000) << names[shape] << " ±" << 100 * c.target << " % sigma " << sigma
                                                   << ": " << covered << " of " << intervals << " covered the truth";
        std::cout << names[shape] << " ±" << 100 * c.target << " % sigma " << sigma << ": coverage "
                  << 100.0 * covered / intervals << " %, mean rounds " << rounds / intervals << "\n";
      }
    }
  }
}

TEST(Sequential, StopsAtTheFirstLookWhenTheNoiseIsLowAndGoesOnWhenItIsHigh) {
  std::mt19937 rng(7);
  SequentialPlan plan;
  plan.target = 0.02;
  plan.min_rounds = 5;
  plan.max_rounds = 100;
  Simulated quiet = simulate(rng, plan, 1.0, 0.003);  // CV 0.3 %, as wireguard-go on a quiet machine
  EXPECT_EQ(quiet.rounds, std::vector<int>{5});
  Simulated noisy = simulate(rng, plan, 1.0, 0.5);  // hopeless: runs to the end
  EXPECT_EQ(noisy.rounds, std::vector<int>{100});
  std::vector<SeriesLook> state;
  look_at_series(plan, {std::vector<double>(5, 1.0)}, &state);  // exact: known at the first look
  EXPECT_TRUE(state[0].met);
  EXPECT_EQ(state[0].needed, 5);
  state.clear();
  look_at_series(plan, {{1.0, 1.0, 1.0}}, &state);  // exact, but before the first look: not met
  EXPECT_FALSE(state[0].met);
  EXPECT_EQ(state[0].rounds, 3);
  EXPECT_EQ(state[0].needed, 0);
}

TEST(Sequential, AnotherRoundStartsOnlyIfItFitsTheTimeLimit) {
  EXPECT_TRUE(round_fits(0, 0, 60));    // the first round always
  EXPECT_TRUE(round_fits(40, 4, 60));   // 10 s per round: 50 <= 60
  EXPECT_FALSE(round_fits(55, 5, 60));  // 11 s per round: 66 > 60
  EXPECT_TRUE(round_fits(5000, 5, 0));  // no limit
}

TEST(Sequential, FewOrBadRatiosGiveNoInterval) {
  EXPECT_TRUE(std::isinf(ratio_interval({}, 0.95).half_width));
  EXPECT_TRUE(std::isinf(ratio_interval({0.9}, 0.95).half_width));
  EXPECT_EQ(ratio_interval({0.9, -1, 0, NAN}, 0.95).n, 1u);
  RatioInterval same = ratio_interval({0.5, 0.5, 0.5}, 0.95);
  EXPECT_NEAR(same.ratio, 0.5, 1e-12);
  EXPECT_NEAR(same.half_width, 0, 1e-12);
}

}  // namespace
}  // namespace vpnlab

#include "../topology_text.h"
#include "lab/app/sampling.h"
#include "lab/model/topology.h"
#include "lab/run/adaptive.h"

namespace vpnlab {
namespace {

// `rounds` rounds of valid a-to-b rows: the baseline at 10 Gbit/s, wireguard-go at
// wireguard_go(round).
std::vector<SampleRow> paired_rows(int rounds, const std::function<double(int)>& wireguard_go) {
  std::vector<SampleRow> rows;
  for (int i = 1; i <= rounds; ++i) {
    SampleRow b, w;
    b.product = "baseline", w.product = "wireguard-go";
    b.test = w.test = "a-to-b";
    b.sample = w.sample = i;
    b.status = w.status = "ok";
    b.valid = w.valid = true;
    b.gbps = 10;
    w.gbps = wireguard_go(i);
    rows.push_back(b);
    rows.push_back(w);
  }
  return rows;
}

// `plan --precision 2% --from RUN`: an earlier run whose ratio wobbles by ±1 % (log sd 1.1 %:
// at 5 rounds t(4) at 97.5 % = 3.495 gives ±1.7 %) is expected to be known at the first look;
// one that wobbles by ±20 % says the target is out of reach; --precision without a
// reference, or with --sequential, is refused.
TEST(Sequential, PlanPredictsTheRoundsFromAnEarlierRunsSpread) {
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/quick.toml");
  ASSERT_TRUE(topo.ok());
  PlanOptions po;
  po.run_id = "20261201-000000-seq";
  po.tag = "seq";
  po.products = {"baseline", "wireguard-go"};
  Plan plan = make_plan(*topo, po).value();
  SamplingRequest request{0.02, std::nullopt, std::nullopt, false};
  auto seq = sequential_request(request, &plan);
  ASSERT_TRUE(seq.ok()) << seq.error().format();
  ASSERT_TRUE(seq->has_value());
  EXPECT_EQ(plan.samples, kDefaultMaxRounds);
  auto rows_with = [](double wobble) {
    return paired_rows(6, [wobble](int i) { return 3 * (1 + (i % 2 ? wobble : -wobble)); });
  };
  auto quiet = rows_with(0.01);
  EXPECT_NE(describe_sampling(plan, **seq, 0, &quiet).find("expected from the earlier run's spread: 5 rounds"),
            std::string::npos)
      << describe_sampling(plan, **seq, 0, &quiet);
  auto noisy = rows_with(0.2);
  EXPECT_NE(describe_sampling(plan, **seq, 0, &noisy).find("the target is not met within 100 rounds"),
            std::string::npos);

  Plan alone = make_plan(*topo, PlanOptions{"r", "t", {"wireguard-go"}}).value();
  auto refused = sequential_request(request, &alone);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().hint, "add --product baseline, or measure NAME@old=/path --product NAME@new=/path");
  plan.interleave = false;
  EXPECT_EQ(sequential_request(request, &plan).error().message, "--precision needs interleaved rounds");
  EXPECT_EQ(sequential_request(SamplingRequest{std::nullopt, 60.0, std::nullopt, false}, &plan).error().message,
            "--max-time and --min-rounds belong to adaptive sampling");
}

// What a run says after a ratio's first look, and what the progress line expects:
// wireguard-go wobbles by ±3 % around 0.04 of the baseline (log sd 3.2 %: ±5.2 % at the
// first look, t(4) at 97.5 % = 3.495). At ±6 % the first look meets it; at ±2 % it needs
// about 17 rounds (t(16) = 2.473 gives ±1.98 %); at ±1 % more than the 20 the run may take.
TEST(Sequential, TheFirstLookSaysHowManyRoundsARatioNeeds) {
  const std::vector<SampleRow> rows = paired_rows(6, [](int i) { return 0.4 * (i % 2 ? 1.03 : 1 / 1.03); });
  auto stops_at = [&](double target) {
    SequentialPlan plan;
    plan.target = target;
    plan.min_rounds = 5;
    plan.max_rounds = 20;
    auto stops = std::make_unique<SeriesStops>(plan, std::vector<RatioSeries>{{"wireguard-go", "baseline", "a-to-b"}});
    std::vector<SampleRow> first_four(rows.begin(), rows.begin() + 8);
    EXPECT_TRUE(stops->look(first_four, {}).empty()) << "no look before the fifth round";
    EXPECT_EQ(stops->expected_rounds("wireguard-go"), 20) << "nothing known yet: the round limit";
    return stops;
  };
  std::vector<SampleRow> first_five(rows.begin(), rows.begin() + 10);
  auto wide = stops_at(0.06);
  EXPECT_TRUE(wide->look(first_five, {}).empty()) << "met at the first look: nothing to say";
  EXPECT_TRUE(wide->all_met());
  auto narrow = stops_at(0.02);
  EXPECT_EQ(narrow->look(first_five, {}), std::vector<size_t>{0});
  EXPECT_EQ(narrow->planned_line(0),
            "wireguard-go / a-to-b vs baseline: ±5.2 % after its first 5 rounds (log spread 3.2 %): about 17 rounds "
            "for ±2.0 %");
  EXPECT_EQ(narrow->expected_rounds("wireguard-go"), 17);
  EXPECT_EQ(narrow->expected_rounds("baseline"), narrow->expected_rounds("wireguard-go"));
  EXPECT_TRUE(narrow->look(rows, {}).empty()) << "said once";
  EXPECT_FALSE(narrow->all_met());
  auto hopeless = stops_at(0.01);
  EXPECT_EQ(hopeless->look(first_five, {}), std::vector<size_t>{0});
  EXPECT_EQ(hopeless->planned_line(0),
            "wireguard-go / a-to-b vs baseline: ±5.2 % after its first 5 rounds (log spread 3.2 %): ±1.0 % would take "
            "about 57 rounds, more than the 20 this run may take");
  EXPECT_EQ(hopeless->expected_rounds("wireguard-go"), 20);
  // A product that never came up ends its series: no rounds are expected of it, not the limit.
  SequentialPlan plan;
  plan.target = 0.02;
  plan.max_rounds = 20;
  SeriesStops dead(plan, {RatioSeries{"wireguard-go", "baseline", "a-to-b"}});
  dead.look({rows[0]}, {"wireguard-go"});
  EXPECT_EQ(dead.expected_rounds("wireguard-go"), 0);
  EXPECT_EQ(dead.expected_rounds("nebula"), 20) << "in no series: the round limit";
}

// The seeds' rr-crr scenario never reached its precision: its idle latency test has no
// ratio to the baseline, so its series had "no interval yet" after every round. Only the
// kinds with a rate ratio are watched.
TEST(Sequential, AnIdleLatencyTestIsNotWatchedForARatio) {
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/latency.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  PlanOptions po;
  po.run_id = "20261207-000000-idle";
  po.tag = "idle";
  po.products = {"baseline", "wireguard-go"};
  Plan plan = make_plan(*topo, po).value();
  auto watched = watched_series(plan);
  ASSERT_TRUE(watched.ok()) << watched.error().format();
  std::vector<std::string> tests;
  for (const auto& s : *watched) tests.push_back(s.test);
  EXPECT_EQ(std::count(tests.begin(), tests.end(), "idle"), 0);
  EXPECT_EQ(std::count(tests.begin(), tests.end(), "rr"), 1);
  EXPECT_EQ(std::count(tests.begin(), tests.end(), "crr"), 1);
  EXPECT_EQ(tests.size(), plan.tests.size() - 1);
}

// The quick topology samples adaptively by default: its [bench] precision and max_time, the
// round limit what the budget holds by the plan's estimate. --samples asks for a fixed
// count instead; --precision on the command line takes no budget from the file. Fourteen
// products in 5 minutes hold fewer rounds than the first look needs: it comes forward to
// what fits (not below 3).
TEST(Sequential, TheQuickTopologySamplesAdaptivelyByDefault) {
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/quick.toml");
  ASSERT_TRUE(topo.ok());
  ASSERT_TRUE(topo->bench.precision.has_value());
  EXPECT_EQ(*topo->bench.precision, 0.05);
  EXPECT_EQ(topo->bench.max_time_s, 300);
  auto plan_of = [&](std::vector<std::string> products) {
    PlanOptions po;
    po.run_id = "20261201-000000-seq";
    po.tag = "seq";
    po.products = std::move(products);
    return make_plan(*topo, po).value();
  };
  Plan plan = plan_of({"baseline", "wireguard-go"});
  const double per_round = plan.estimated_round_seconds();
  auto seq = sequential_request(SamplingRequest{}, &plan);
  ASSERT_TRUE(seq.ok()) << seq.error().format();
  ASSERT_TRUE(seq->has_value());
  EXPECT_EQ((*seq)->target, 0.05);
  EXPECT_EQ(plan.max_time_s, 300);
  EXPECT_EQ(plan.samples, static_cast<int>(300 / per_round));
  EXPECT_EQ((*seq)->max_rounds, plan.samples);
  EXPECT_EQ((*seq)->min_rounds, 5);

  Plan fixed = plan_of({"baseline", "wireguard-go"});
  SamplingRequest given;
  given.samples_given = true;
  seq = sequential_request(given, &fixed);
  ASSERT_TRUE(seq.ok());
  EXPECT_FALSE(seq->has_value());
  EXPECT_FALSE(fixed.precision.has_value());
  EXPECT_EQ(fixed.max_time_s, 0);

  Plan asked = plan_of({"baseline", "wireguard-go"});
  seq = sequential_request(SamplingRequest{0.02, std::nullopt, std::nullopt, false}, &asked);
  ASSERT_TRUE(seq.ok() && seq->has_value());
  EXPECT_EQ((*seq)->target, 0.02);
  EXPECT_EQ(asked.max_time_s, 0);
  EXPECT_EQ(asked.samples, kDefaultMaxRounds);

  std::vector<std::string> many{"baseline"};
  for (char c = 'a'; c < 'a' + 13; ++c) many.push_back(std::string("baseline@") + c);
  Plan all = plan_of(many);
  const int fit = static_cast<int>(300 / all.estimated_round_seconds());
  ASSERT_LT(fit, 5) << "the case this checks: fewer rounds fit than the first look needs";
  seq = sequential_request(SamplingRequest{}, &all);
  ASSERT_TRUE(seq.ok() && seq->has_value()) << seq.error().format();
  EXPECT_EQ((*seq)->min_rounds, std::max(fit, 3));
  EXPECT_EQ((*seq)->max_rounds, std::max(fit, 3));
  EXPECT_EQ((*seq)->first_look(), std::max(fit, 3));
}

// Issue 49.3: a file that sets no samples, duration or precision gets vpnlab's own defaults,
// quick.toml's everyday flow (adaptive to ±5 % within 5 min, 3 s samples after 1 s), not a
// fixed 10 x 10 s; any of the three in the file, or --samples, keeps a fixed count.
TEST(Sequential, AFileThatSetsNoSamplingGetsTheQuickTopologysFlow) {
  auto topo = parse_topology_text(topology_with_test("server = \"b\"\n"), "mine.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  EXPECT_TRUE(topo->bench.adaptive_by_default);
  ASSERT_TRUE(topo->bench.precision.has_value());
  EXPECT_EQ(*topo->bench.precision, kDefaultPrecision);
  EXPECT_EQ(topo->bench.max_time_s, kDefaultMaxTimeS);
  EXPECT_EQ(topo->bench.duration_s, kDefaultDurationS);
  EXPECT_EQ(topo->bench.warmup_s, kDefaultWarmupS);
  PlanOptions po;
  po.run_id = "20261204-000000-def";
  po.tag = "def";
  po.products = {"baseline", "wireguard-go"};
  Plan plan = make_plan(*topo, po).value();
  auto seq = sequential_request(SamplingRequest{}, &plan);
  ASSERT_TRUE(seq.ok() && seq->has_value()) << seq.error().format();
  EXPECT_EQ(describe_sampling(plan, **seq, plan.max_time_s, nullptr)
                .rfind("vpnlab's default (the file sets no samples, duration or precision; --samples N measures a "
                       "fixed N): adaptive sampling to "
                       "±5.0 %",
                       0),
            0u);
  // --samples: a fixed count, as before.
  Plan fixed = make_plan(*topo, po).value();
  SamplingRequest given;
  given.samples_given = true;
  EXPECT_FALSE(sequential_request(given, &fixed)->has_value());
  // The baseline alone has no ratio to be precise about: the fixed count, not an error about
  // a --precision nobody gave (the VM root test's 'run' met that).
  po.products = {"baseline"};
  Plan alone = make_plan(*topo, po).value();
  auto fixed_alone = sequential_request(SamplingRequest{}, &alone);
  ASSERT_TRUE(fixed_alone.ok()) << fixed_alone.error().format();
  EXPECT_FALSE(fixed_alone->has_value());
  po.products = {"baseline", "wireguard-go"};
  // Any of the three in the file: what it says, nothing adaptive added.
  for (const char* key : {"samples = 4\n", "duration = \"5s\"\n", "precision = \"2%\"\n"}) {
    std::string text = topology_with_test("server = \"b\"\n");
    text.replace(text.find("[bench]\n"), 8, std::string("[bench]\n") + key);
    auto own = parse_topology_text(text, "mine.toml");
    ASSERT_TRUE(own.ok()) << own.error().format();
    EXPECT_FALSE(own->bench.adaptive_by_default) << key;
    EXPECT_EQ(own->bench.precision.has_value(), std::string(key).rfind("precision", 0) == 0) << key;
    EXPECT_EQ(own->bench.max_time_s, 0) << key;
  }
  // Many products: three rounds do not fit 5 min; the default budget stretches to them and says so
  // (a budget the file set would refuse a sweep instead, as check_sweep_budget does).
  po.products = {"baseline"};
  for (int i = 0; i < 40; ++i) po.products.push_back("baseline@v" + std::to_string(i));
  Plan many = make_plan(*topo, po).value();
  seq = sequential_request(SamplingRequest{}, &many);
  ASSERT_TRUE(seq.ok() && seq->has_value()) << seq.error().format();
  EXPECT_GT(many.max_time_s, kDefaultMaxTimeS);
  EXPECT_EQ((*seq)->max_rounds, 3);
  EXPECT_NE(
      describe_sampling(many, **seq, many.max_time_s, nullptr).find("the default budget of 5.0 min is stretched to "),
      std::string::npos);
}

}  // namespace
}  // namespace vpnlab
