// Which sample length buys the most precision per minute (issue 36): `vpnlab run` of the
// 2-node quick topology, baseline and wireguard-go in interleaved rounds, once per sample
// length; for each, the round-paired ratio's spread, the wall time a round took, and from
// those the half-width of the ratio's 95 % interval one minute of rounds reaches and the
// minutes until ±5 % and ±2 %. Prints figures, asserts nothing.
//   precision_bench [ROUNDS [SECONDS...]]     (default 8 rounds each of 2, 3, 5 and 10 s)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_support.h"
#include "lab/base/fs_util.h"
#include "lab/base/sequential.h"
#include "lab/record/results_csv.h"
#include "lab/results/paired.h"

using namespace vpnlab;

namespace {

struct LengthResult {
  int seconds = 0, rounds = 0;
  double round_wall_s = 0;  // wall time of one round of both products
  double log_sd = 0;        // spread of log(wireguard-go / baseline) between rounds
  double ratio = 0;
};

// Rounds until the 95 % Student t interval of the mean log ratio is within `target`.
int rounds_to(double target, double log_sd) {
  for (int n = 2; n <= 10000; ++n)
    if (std::exp(t_quantile(0.95, n - 1) * log_sd / std::sqrt(double(n))) - 1 <= target) return n;
  return 10000;
}

bool measure(const std::string& dir, int rounds, int seconds, LengthResult* out) {
  const std::string tag = std::to_string(seconds);
  const std::string run_dir = bench::run_baseline_and_wireguard_go(
      VPNLAB_BINARY, dir + "/precision.toml", rounds, seconds, dir + "/runs-" + tag, dir + "/run-" + tag + ".log");
  std::vector<double> base, wg;
  if (run_dir.empty() || !bench::paired_baseline_and_wireguard_go(run_dir, &base, &wg)) return false;
  auto env = nlohmann::json::parse(read_file_text(run_dir + "/environment.json"));
  std::vector<double> ratios;
  for (size_t i = 0; i < base.size(); ++i) ratios.push_back(wg[i] / base[i]);
  RatioInterval ri = ratio_interval(ratios, 0.95);
  *out = LengthResult{seconds, static_cast<int>(ri.n), env["timings"]["wall_s"].get<double>() / rounds, ri.log_sd,
                      ri.ratio};
  return ri.n >= 2;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 8;
  std::vector<int> lengths;
  for (int i = 2; i < argc; ++i) lengths.push_back(std::atoi(argv[i]));
  if (lengths.empty()) lengths = {2, 3, 5, 10};
  if (rounds < 3 || std::any_of(lengths.begin(), lengths.end(), [](int s) { return s < 1; })) {
    fprintf(stderr, "usage: precision_bench [ROUNDS (>= 3) [SECONDS...]]\n");
    return 2;
  }
  char tmpl[] = "/tmp/vpnlab-precision-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  const std::string dir = tmpl;
  // The quick topology with a 1 s warm-up and no adaptive sampling of its own.
  std::ofstream(dir + "/precision.toml") << bench::quick_topology_text(VPNLAB_TOPOLOGIES "/quick.toml", "prec", 1);
  printf("precision_bench: baseline + wireguard-go, %d interleaved rounds per sample length, 1 s warm-up, 2 nodes\n",
         rounds);
  printf("  %7s %7s %11s %12s %9s %14s %14s %14s\n", "sample", "rounds", "round wall", "sd log ratio", "ratio",
         "±95 % in 1 min", "to ±5 %", "to ±2 %");
  for (int seconds : lengths) {
    LengthResult r;
    if (!measure(dir, rounds, seconds, &r)) continue;
    // One minute of rounds: the normal approximation of what the interval tends to.
    const double per_minute = 60 / r.round_wall_s;
    const double hw_minute = std::exp(1.96 * r.log_sd / std::sqrt(per_minute)) - 1;
    const int n5 = rounds_to(0.05, r.log_sd), n2 = rounds_to(0.02, r.log_sd);
    char to5[32], to2[32];
    snprintf(to5, sizeof to5, "%d (%.1f min)", n5, n5 * r.round_wall_s / 60);
    snprintf(to2, sizeof to2, "%d (%.1f min)", n2, n2 * r.round_wall_s / 60);
    printf("  %5d s %7d %9.2f s %11.2f %% %9.4f %12.2f %% %14s %14s\n", seconds, r.rounds, r.round_wall_s,
           100 * r.log_sd, r.ratio, 100 * hw_minute, to5, to2);
    fflush(stdout);
  }
  std::filesystem::remove_all(dir);
  return 0;
}
