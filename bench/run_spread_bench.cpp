// Whether runs differ by more than their intervals say (issue 66). RUNS whole `vpnlab run`s of
// the quick topology, one after the other (baseline + wireguard-go, ROUNDS interleaved rounds
// of SECONDS each), and three estimates each run makes: the baseline's Gbit/s and
// wireguard-go's (what `diff` compares between two runs) and wireguard-go's ratio to the
// baseline (what the table prints, and `diff --relative` compares). For each, the spread of
// the runs' estimates (log scale) beside the spread each run's own interval implies (its
// standard error): their quotient is 1 when a run's interval holds what the next run finds,
// and above 1 runs differ by more; the excess is the between-run SD no single run can see.
// Also: of the consecutive pairs of runs, how many a comparison of the two at 95 % would call
// different (5 % when the intervals are honest). Prints figures, asserts nothing.
//   run_spread_bench [RUNS=6 [ROUNDS=6 [SECONDS=3]]]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_support.h"
#include "lab/base/stats.h"
#include "lab/record/results_csv.h"
#include "lab/results/paired.h"

using namespace vpnlab;

namespace {

// One run's estimate of one quantity, on the log scale: the mean over rounds and its
// standard error.
struct LogEstimate {
  double mean = 0, se = 0;
  size_t n = 0;
};

LogEstimate log_estimate(const std::vector<double>& values) {
  LogEstimate e;
  std::vector<double> logs;
  for (double v : values)
    if (v > 0) logs.push_back(std::log(v));
  e.n = logs.size();
  if (e.n < 2) return e;
  double sum = 0, sq = 0;
  for (double l : logs) sum += l;
  e.mean = sum / e.n;
  for (double l : logs) sq += (l - e.mean) * (l - e.mean);
  e.se = std::sqrt(sq / (e.n - 1) / e.n);
  return e;
}

// The three estimates of one run: baseline Gbit/s, wireguard-go Gbit/s, their per-round ratio.
bool measure_run(const std::string& dir, int index, int rounds, int seconds, std::vector<LogEstimate>* out) {
  const std::string tag = std::to_string(index);
  const std::string run_dir = bench::run_baseline_and_wireguard_go(VPNLAB_BINARY, dir + "/spread.toml", rounds, seconds,
                                                                   dir + "/runs-" + tag, dir + "/run-" + tag + ".log");
  std::vector<double> base, wg, ratios;
  if (run_dir.empty() || !bench::paired_baseline_and_wireguard_go(run_dir, &base, &wg)) return false;
  for (size_t i = 0; i < base.size(); ++i) ratios.push_back(wg[i] / base[i]);
  *out = {log_estimate(base), log_estimate(wg), log_estimate(ratios)};
  return out->at(2).n >= 2;
}

// The runs' estimates of one quantity against what their intervals imply.
void print_spread(const char* what, const std::vector<LogEstimate>& runs) {
  const size_t k = runs.size();
  double mean = 0, mean_se2 = 0;
  for (const auto& r : runs) mean += r.mean / k, mean_se2 += r.se * r.se / k;
  double var = 0;
  for (const auto& r : runs) var += (r.mean - mean) * (r.mean - mean) / (k - 1);
  const double between = std::sqrt(var), within = std::sqrt(mean_se2);
  const double excess = std::sqrt(std::max(0.0, var - mean_se2));
  int called = 0;
  for (size_t i = 0; i + 1 < k; ++i)
    called += std::fabs(runs[i + 1].mean - runs[i].mean) >
              1.96 * std::sqrt(runs[i].se * runs[i].se + runs[i + 1].se * runs[i + 1].se);
  printf("  %-22s %9.4f %13.2f %% %13.2f %% %9.2f %13.2f %% %5d of %zu\n", what, std::exp(mean), 100 * between,
         100 * within, within > 0 ? between / within : 0.0, 100 * excess, called, k - 1);
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 6;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 6;
  const int seconds = argc > 3 ? std::atoi(argv[3]) : 3;
  if (runs < 3 || rounds < 3 || seconds < 1) {
    fprintf(stderr, "usage: run_spread_bench [RUNS (>= 3) [ROUNDS (>= 3) [SECONDS (>= 1)]]]\n");
    return 2;
  }
  char tmpl[] = "/tmp/vpnlab-spread-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  const std::string dir = tmpl;
  std::ofstream(dir + "/spread.toml") << bench::quick_topology_text(VPNLAB_TOPOLOGIES "/quick.toml", "spread", 1);
  printf("run_spread_bench: %d runs of baseline + wireguard-go, %d interleaved rounds of %d s each, 1 s warm-up\n",
         runs, rounds, seconds);
  std::vector<std::vector<LogEstimate>> by_quantity(3);
  const auto start = bench::Clock::now();
  for (int i = 1; i <= runs; ++i) {
    std::vector<LogEstimate> e;
    if (!measure_run(dir, i, rounds, seconds, &e)) continue;
    printf("  run %d: baseline %.3f ±%.1f %%, wireguard-go %.3f ±%.1f %%, ratio %.4f ±%.1f %% (1 SE)\n", i,
           std::exp(e[0].mean), 100 * e[0].se, std::exp(e[1].mean), 100 * e[1].se, std::exp(e[2].mean), 100 * e[2].se);
    fflush(stdout);
    for (size_t q = 0; q < 3; ++q) by_quantity[q].push_back(e[q]);
  }
  if (by_quantity[2].size() < 3) {
    fprintf(stderr, "bench: fewer than 3 runs finished; their output is in %s\n", dir.c_str());
    return 1;
  }
  printf("%zu runs in %.0f s; per estimate (log scale; SE: a run's own standard error):\n", by_quantity[2].size(),
         bench::ms_since(start) / 1000);
  printf("  %-22s %9s %15s %15s %9s %15s %14s\n", "estimate", "mean", "between runs", "within (SE)", "quotient",
         "excess SD", "pairs 'differ'");
  print_spread("baseline Gbit/s", by_quantity[0]);
  print_spread("wireguard-go Gbit/s", by_quantity[1]);
  print_spread("wireguard-go / baseline", by_quantity[2]);
  std::filesystem::remove_all(dir);
  return 0;
}
