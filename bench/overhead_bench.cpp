// Where a run's wall time goes (issue 36): `vpnlab run` of the 2-node quick topology, baseline
// and wireguard-go in interleaved rounds, then the phases it recorded (environment.json
// "timings") as a table, and the harness's cost per sample. Prints figures, asserts nothing.
//   overhead_bench [ROUNDS [SECONDS [WARMUP_S [KIND]]]]
// (default 4 rounds of 3 s after 1 s warm-up of the quick topology's bulk test). KIND gives
// its one test another kind instead: bulk, udp, udp-zero-loss, rr, crr, latency, or all of
// them in turn (issue 66: the harness's cost per sample under 0.1 s for every kind).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "bench_support.h"
#include "lab/base/fs_util.h"

namespace vpnlab {
namespace {

// Each kind's one test, a to b, as a topology file writes it (the quick file's bulk test is
// replaced by it). The UDP tests' rate is below what either side loses at here.
const std::map<std::string, std::string>& kind_tests() {
  static const std::map<std::string, std::string> tests = {
      {"bulk", "name = \"a-to-b\"\nclient = \"a\"\nserver = \"b\"\nstreams = 1\n"},
      {"udp", "name = \"a-to-b\"\nclient = \"a\"\nserver = \"b\"\nudp = true\nbitrate = \"200M\"\n"},
      {"udp-zero-loss",
       "name = \"a-to-b\"\nclient = \"a\"\nserver = \"b\"\nudp = true\nbitrate = \"1G\"\nzero_loss = true\n"
       "max_loss = 0.1\nsteps = 3\n"},
      {"rr", "name = \"a-to-b\"\nkind = \"rr\"\nclient = \"a\"\nserver = \"b\"\nsize = 14\n"},
      {"crr", "name = \"a-to-b\"\nkind = \"crr\"\nclient = \"a\"\nserver = \"b\"\nsize = 14\n"},
      {"latency", "name = \"a-to-b\"\nkind = \"latency\"\nclient = \"a\"\nserver = \"b\"\n"},
  };
  return tests;
}

// Per sample: the harness's seconds beyond warm-up and measuring, what a warm-up took beyond
// its asked seconds, and the once-per-product checks' share; harness < 0: the run failed.
struct KindCost {
  double harness = -1, warmup_excess = 0, checks = 0;
};

// One kind's run, its phases printed.
KindCost measure_kind(const std::string& dir, const std::string& kind, int rounds, int seconds, int warmup) {
  // The quick topology with the warm-up asked for (a file of its own: the shipped one stays).
  std::string topo = bench::quick_topology_text(VPNLAB_TOPOLOGIES "/quick.toml", "ovh", warmup);
  topo = topo.substr(0, topo.find("[[bench.test]]")) + "[[bench.test]]\n" + kind_tests().at(kind);
  const std::string file = dir + "/overhead-" + kind + ".toml";
  std::ofstream(file) << topo;
  const auto t0 = bench::Clock::now();
  const std::string run_dir = bench::run_baseline_and_wireguard_go(
      VPNLAB_BINARY, file, rounds, seconds, dir + "/runs-" + kind, dir + "/run-" + kind + ".log");
  if (run_dir.empty()) return {};
  const double process_s = bench::ms_since(t0) / 1000;
  auto env = nlohmann::json::parse(read_file_text(run_dir + "/environment.json"));
  const auto& t = env["timings"];
  const double wall = t["wall_s"].get<double>();
  const int samples = t["samples"].get<int>();
  printf("overhead_bench: %s, baseline + wireguard-go, %d interleaved rounds of %d s warm-up + %d s, 2 nodes (%s)\n",
         kind.c_str(), rounds, warmup, seconds, run_dir.c_str());
  printf("  %-22s %9s %7s %12s\n", "phase", "seconds", "% wall", "per sample");
  std::vector<std::pair<std::string, double>> phases;
  for (const auto& [name, s] : t["phases"].items()) phases.emplace_back(name, s.get<double>());
  std::sort(phases.begin(), phases.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [name, s] : phases)
    printf("  %-22s %9.3f %6.1f %% %10.3f s\n", name.c_str(), s, 100 * s / wall, s / samples);
  // The idle round trip before a bulk sample is a measurement of its own (run_timing.h).
  const double measuring = t["phases"].value("measuring", 0.0) + t["phases"].value("idle round trip", 0.0);
  const double warm = t["phases"].value("warm-up", 0.0);
  printf("  run_bench wall %.2f s; the whole process %.2f s (start, outputs, report: %.2f s)\n", wall, process_s,
         process_s - wall);
  printf(
      "  harness per sample: %.3f s beyond warm-up and measuring; %.3f s beyond measuring alone; "
      "measuring is %.1f %% of wall (warm-up and measuring %.1f %%)\n",
      (wall - measuring - warm) / samples, (wall - measuring) / samples, 100 * measuring / wall,
      100 * (measuring + warm) / wall);
  printf("  the same counted as the issue does (process wall over the asked seconds): %.3f s per sample\n",
         (process_s - samples * (seconds + warmup)) / samples);
  return {.harness = (wall - measuring - warm) / samples,
          .warmup_excess = (warm - samples * warmup) / samples,
          .checks = t["phases"].value("checks", 0.0) / samples};
}

}  // namespace
}  // namespace vpnlab

int main(int argc, char** argv) {
  using vpnlab::kind_tests;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 4;
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 3;
  const int warmup = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::string kind = argc > 4 ? argv[4] : "bulk";
  if (rounds < 1 || seconds < 1 || warmup < 0 || (kind != "all" && !kind_tests().count(kind))) {
    fprintf(stderr,
            "usage: overhead_bench [ROUNDS [SECONDS [WARMUP_S [bulk|udp|udp-zero-loss|rr|crr|latency|all]]]]\n");
    return 2;
  }
  char tmpl[] = "/tmp/vpnlab-overhead-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  const std::string dir = tmpl;
  std::vector<std::pair<std::string, vpnlab::KindCost>> per_kind;
  for (const auto& [name, test] : kind_tests()) {
    if (kind != "all" && kind != name) continue;
    const vpnlab::KindCost cost = vpnlab::measure_kind(dir, name, rounds, seconds, warmup);
    if (cost.harness < 0) return 1;
    per_kind.emplace_back(name, cost);
  }
  if (per_kind.size() > 1) {
    printf(
        "overhead_bench: seconds per sample, by kind (harness: beyond warm-up and measuring; the checks run once\n"
        "per product, so their share shrinks with more samples)\n");
    printf("  %-14s %8s %14s %8s\n", "kind", "harness", "warm-up excess", "checks");
    for (const auto& [name, c] : per_kind)
      printf("  %-14s %8.3f %14.3f %8.3f%s\n", name.c_str(), c.harness, c.warmup_excess, c.checks,
             c.harness < 0.1 ? "" : "  (harness over 0.1 s)");
  }
  std::filesystem::remove_all(dir);
  return 0;
}
