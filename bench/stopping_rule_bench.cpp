// Which stopping rule reaches a precision in the fewest rounds, and whether the interval it
// stops on covers: adaptive sampling's (lab/base/sequential.h: a look after every round from
// the 5th, each at 97.5 %) against the same at 95 % (too optimistic), the looks it replaced
// (5, 8, 12, 18, 27, ... rounds each at 1 - 0.05/K, Bonferroni over K looks) and Stein's
// two stages (6 rounds' spread s0 fixes N = max(6, (t(5) s0 / log(1 + target))^2)), the
// last three written out here. Simulated ratios with normal log noise at the log spreads
// the quick topology shows, within a round limit. Prints, per spread and rule, the coverage
// of the final interval, the mean rounds and the share of ratios that reached the target.
//
//   ./build/bench/stopping_rule_bench [RUNS [TARGET_PERCENT [MAX_ROUNDS]]]   (default 20000 5 34)
//   ./build/bench/stopping_rule_bench --replay RESULTS.csv...
// --replay: each run's own round-paired ratios of the first product to the baseline (its
// counted rows, in round order) under the three rules at ±5 % within the rounds it has:
// the round each would have stopped at (never: -), and the rounds the two stages ask for.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "lab/base/sequential.h"
#include "lab/record/results_csv.h"
#include "lab/run/adaptive.h"

using namespace vpnlab;

namespace {

struct Tally {
  int covered = 0, met = 0, runs = 0;
  double rounds = 0;
  void add(bool cover, bool reached, int n) {
    covered += cover;
    met += reached;
    rounds += n;
    ++runs;
  }
};

// The replaced rule: look at spaced round counts, each interval at 1 - alpha / K.
std::vector<int> bonferroni_looks(int max_rounds) {
  std::vector<int> out;
  for (int n = 5; n < max_rounds; n = std::max(n + 1, static_cast<int>(std::ceil(n * 1.5)))) out.push_back(n);
  out.push_back(max_rounds);
  return out;
}

void run_looks(std::mt19937_64& rng, double sigma, double target, int max_rounds, Tally* t) {
  std::normal_distribution<double> noise(0, sigma);
  const std::vector<int> looks = bonferroni_looks(max_rounds);
  const double level = 1 - 0.05 / static_cast<double>(looks.size());
  std::vector<double> ratios;
  RatioInterval last;
  bool reached = false;
  for (int n = 1; n <= max_rounds; ++n) {
    ratios.push_back(std::exp(noise(rng)));
    if (std::find(looks.begin(), looks.end(), n) == looks.end()) continue;
    last = ratio_interval(ratios, level);
    reached = last.half_width <= target;
    if (reached) break;
  }
  t->add(last.low <= 1 && 1 <= last.high, reached, static_cast<int>(ratios.size()));
}

// The library's rule at `level` (kLookConfidence is what runs use).
void run_every_round(std::mt19937_64& rng, double sigma, double target, int max_rounds, double level, Tally* t) {
  std::normal_distribution<double> noise(0, sigma);
  std::vector<double> ratios;
  RatioInterval last;
  bool reached = false;
  for (int n = 1; n <= max_rounds && !reached; ++n) {
    ratios.push_back(std::exp(noise(rng)));
    if (n < 5) continue;
    last = ratio_interval(ratios, level);
    reached = last.half_width <= target;
  }
  t->add(last.low <= 1 && 1 <= last.high, reached, static_cast<int>(ratios.size()));
}

void run_library(std::mt19937_64& rng, double sigma, double target, int max_rounds, Tally* t) {
  std::normal_distribution<double> noise(0, sigma);
  SequentialPlan plan;
  plan.target = target;
  plan.max_rounds = max_rounds;
  std::vector<std::vector<double>> ratios(1);
  std::vector<SeriesLook> state;
  for (int n = 1; n <= max_rounds && !(state.size() == 1 && state[0].met); ++n) {
    ratios[0].push_back(std::exp(noise(rng)));
    look_at_series(plan, ratios, &state);
  }
  RatioInterval i = ratio_interval(ratios[0], plan.confidence());
  t->add(i.low <= 1 && 1 <= i.high, state[0].met, static_cast<int>(ratios[0].size()));
}

void run_two_stages(std::mt19937_64& rng, double sigma, double target, int max_rounds, Tally* t) {
  constexpr int kFirst = 6;
  std::normal_distribution<double> noise(0, sigma);
  std::vector<double> logs;
  for (int i = 0; i < kFirst; ++i) logs.push_back(noise(rng));
  double mean = 0, ss = 0;
  for (double x : logs) mean += x / kFirst;
  for (double x : logs) ss += (x - mean) * (x - mean);
  const double s0 = std::sqrt(ss / (kFirst - 1)), q = t_quantile(0.95, kFirst - 1);
  const double needed = std::ceil(std::pow(q * s0 / std::log1p(target), 2));
  const int n = static_cast<int>(std::min<double>(std::max<double>(kFirst, needed), max_rounds));
  while (static_cast<int>(logs.size()) < n) logs.push_back(noise(rng));
  mean = 0;
  for (double x : logs) mean += x / n;
  t->add(std::fabs(mean) <= q * s0 / std::sqrt(static_cast<double>(n)), needed <= max_rounds, n);
}

void print(const char* rule, const Tally& t) {
  printf("  %-22s coverage %5.2f %%  mean rounds %5.1f  target reached %5.1f %%\n", rule, 100.0 * t.covered / t.runs,
         t.rounds / t.runs, 100.0 * t.met / t.runs);
}

}  // namespace

int replay(const std::string& path) {
  auto rows = read_results_csv(path);
  if (!rows) {
    fprintf(stderr, "%s: %s\n", path.c_str(), rows.error().message.c_str());
    return 1;
  }
  std::string product;
  for (const auto& r : *rows)
    if (r.product != "baseline" && product.empty()) product = r.product;
  const std::vector<double> ratios =
      paired_ratios({RatioSeries{product, "baseline", rows->empty() ? "" : rows->front().test}}, *rows)[0];
  const int n = static_cast<int>(ratios.size());
  const double within = std::log1p(0.05);
  auto half = [&](int k, double level) {
    return ratio_interval(std::vector<double>(ratios.begin(), ratios.begin() + k), level).half_width;
  };
  int looks = -1, every = -1;
  const std::vector<int> planned = bonferroni_looks(34);
  for (int k : planned)
    if (looks < 0 && k <= n && half(k, 1 - 0.05 / static_cast<double>(planned.size())) <= 0.05) looks = k;
  for (int k = 5; k <= n && every < 0; ++k)
    if (half(k, kLookConfidence) <= 0.05) every = k;
  const int first = std::min(6, n);
  const double s0 =
      first >= 2 ? ratio_interval(std::vector<double>(ratios.begin(), ratios.begin() + first), 0.95).log_sd : 0;
  const double stein = std::ceil(std::pow(t_quantile(0.95, 5) * s0 / within, 2));
  auto shown = [](int k) { return k < 0 ? std::string("-") : std::to_string(k); };
  printf(
      "%s: %s, %d paired rounds, log spread %.3f: looks stop at %s, two stages ask %.0f, every round at 97.5 %% "
      "stops at %s\n",
      path.c_str(), product.c_str(), n, ratio_interval(ratios, 0.95).log_sd, shown(looks).c_str(), std::max(6.0, stein),
      shown(every).c_str());
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--replay") {
    int status = 0;
    for (int i = 2; i < argc; ++i) status |= replay(argv[i]);
    return status;
  }
  const int runs = argc > 1 ? std::atoi(argv[1]) : 20000;
  const double target = (argc > 2 ? std::atof(argv[2]) : 5) / 100;
  const int max_rounds = argc > 3 ? std::atoi(argv[3]) : 34;
  if (runs < 1 || !(target > 0) || max_rounds < 8) {
    fprintf(stderr, "usage: stopping_rule_bench [RUNS [TARGET_PERCENT [MAX_ROUNDS >= 8]]]\n");
    return 2;
  }
  printf("%d simulated ratios per rule and spread, ±%.1f %% within %d rounds, normal log noise\n", runs, 100 * target,
         max_rounds);
  std::mt19937_64 rng(20261207);
  for (double sigma : {0.03, 0.047, 0.065, 0.08, 0.1}) {
    printf("log spread %.3f\n", sigma);
    Tally looks;
    for (int i = 0; i < runs; ++i) run_looks(rng, sigma, target, max_rounds, &looks);
    print("looks (Bonferroni)", looks);
    Tally naive, library, stein;
    for (int i = 0; i < runs; ++i) run_every_round(rng, sigma, target, max_rounds, 0.95, &naive);
    print("every round at 95 %", naive);
    for (int i = 0; i < runs; ++i) run_library(rng, sigma, target, max_rounds, &library);
    print("every round at 97.5 %", library);
    for (int i = 0; i < runs; ++i) run_two_stages(rng, sigma, target, max_rounds, &stein);
    print("two stages (Stein)", stein);
  }
  return 0;
}
