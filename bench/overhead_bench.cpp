// Where a run's wall time goes (issue 36): `vpnlab run` of the 2-node quick topology, baseline
// and wireguard-go in interleaved rounds, then the phases it recorded (environment.json
// "timings") as a table, and the harness's cost per sample. Prints figures, asserts nothing.
//   overhead_bench [ROUNDS [SECONDS [WARMUP_S]]]     (default 4 rounds of 3 s after 1 s warm-up)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bench_support.h"
#include "lab/base/fs_util.h"

using namespace vpnlab;

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 4;
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 3;
  const int warmup = argc > 3 ? std::atoi(argv[3]) : 1;
  if (rounds < 1 || seconds < 1 || warmup < 0) {
    fprintf(stderr, "usage: overhead_bench [ROUNDS [SECONDS [WARMUP_S]]]\n");
    return 2;
  }
  char tmpl[] = "/tmp/vpnlab-overhead-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  const std::string dir = tmpl;
  // The quick topology with the warm-up asked for (a file of its own: the shipped one stays).
  std::ofstream(dir + "/overhead.toml") << bench::quick_topology_text(VPNLAB_TOPOLOGIES "/quick.toml", "ovh", warmup);
  const auto t0 = bench::Clock::now();
  const std::string run_dir = bench::run_baseline_and_wireguard_go(VPNLAB_BINARY, dir + "/overhead.toml", rounds,
                                                                   seconds, dir + "/runs", dir + "/run.log");
  if (run_dir.empty()) return 1;
  const double process_s = bench::ms_since(t0) / 1000;
  auto env = nlohmann::json::parse(read_file_text(run_dir + "/environment.json"));
  const auto& t = env["timings"];
  const double wall = t["wall_s"].get<double>();
  const int samples = t["samples"].get<int>();
  printf("overhead_bench: baseline + wireguard-go, %d interleaved rounds of %d s warm-up + %d s, 2 nodes (%s)\n",
         rounds, warmup, seconds, run_dir.c_str());
  printf("  %-22s %9s %7s %12s\n", "phase", "seconds", "% wall", "per sample");
  std::vector<std::pair<std::string, double>> phases;
  for (const auto& [name, s] : t["phases"].items()) phases.emplace_back(name, s.get<double>());
  std::sort(phases.begin(), phases.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [name, s] : phases)
    printf("  %-22s %9.3f %6.1f %% %10.3f s\n", name.c_str(), s, 100 * s / wall, s / samples);
  const double measuring = t["phases"].value("measuring", 0.0), warm = t["phases"].value("warm-up", 0.0);
  printf("  run_bench wall %.2f s; the whole process %.2f s (start, outputs, report: %.2f s)\n", wall, process_s,
         process_s - wall);
  printf(
      "  harness per sample: %.3f s beyond warm-up and measuring; %.3f s beyond measuring alone; "
      "measuring is %.1f %% of wall (warm-up and measuring %.1f %%)\n",
      (wall - measuring - warm) / samples, (wall - measuring) / samples, 100 * measuring / wall,
      100 * (measuring + warm) / wall);
  printf("  the same counted as the issue does (process wall over the asked seconds): %.3f s per sample\n",
         (process_s - samples * (seconds + warmup)) / samples);
  std::filesystem::remove_all(dir);
  return 0;
}
