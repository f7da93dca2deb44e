// Shared by the benchmarks: timing, medians, and running `ip` commands the way a user's
// script would (one process per command).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "lab/base/fs_util.h"
#include "lab/base/process.h"
#include "lab/record/results_csv.h"
#include "lab/results/paired.h"

namespace vpnlab::bench {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs argv to completion; returns false (and prints it unless `quiet`) if it failed.
inline bool run(const std::vector<std::string>& argv, const std::string& out = "/dev/null", bool quiet = false) {
  SpawnSpec s;
  s.argv = argv;
  s.stdout_path = out;
  auto r = run_command(s, 60);
  if (!r || r->exit_status != 0) {
    if (quiet) return false;
    std::string cmd;
    for (const auto& a : argv) cmd += a + " ";
    fprintf(stderr, "bench: failed: %s\n", cmd.c_str());
    return false;
  }
  return true;
}

// The quick topology (`quick_toml`: its path) for a bench's own file: lab `lab_name`, the
// warm-up asked for, and without its adaptive sampling keys (a bench asks --samples).
inline std::string quick_topology_text(const std::string& quick_toml, const std::string& lab_name, int warmup_s) {
  std::string topo = read_file_text(quick_toml);
  topo = std::regex_replace(topo, std::regex("warmup = \"[0-9]+s\""), "warmup = \"" + std::to_string(warmup_s) + "s\"");
  topo = std::regex_replace(topo, std::regex("\nprecision = [^\n]*"), "");
  topo = std::regex_replace(topo, std::regex("\nmax_time = [^\n]*"), "");
  return std::regex_replace(topo, std::regex("name = \"quick\""), "name = \"" + lab_name + "\"");
}

// `vpnlab run TOPOLOGY` of baseline and wireguard-go: `rounds` interleaved rounds of `seconds`
// each, into OUT (no history, quiet; its output in LOG). The run directory, or "" (said).
inline std::string run_baseline_and_wireguard_go(const std::string& vpnlab, const std::string& topology, int rounds,
                                                 int seconds, const std::string& out, const std::string& log) {
  SpawnSpec spec;
  spec.argv = {vpnlab,
               "run",
               topology,
               "--product",
               "baseline",
               "--product",
               "wireguard-go",
               "--samples",
               std::to_string(rounds),
               "--duration",
               std::to_string(seconds) + "s",
               "--out",
               out,
               "--no-history",
               "-q"};
  spec.stdout_path = log;
  auto ran = run_command(spec, 24 * 3600.0);
  if (!ran || ran->exit_status != 0) {
    fprintf(stderr, "bench: the run failed; its output: %s\n", log.c_str());
    return "";
  }
  std::string run_dir;
  for (const auto& e : std::filesystem::directory_iterator(out)) run_dir = e.path().string();
  return run_dir;
}

// A run's a-to-b Gbit/s of baseline and wireguard-go, paired by round.
inline bool paired_baseline_and_wireguard_go(const std::string& run_dir, std::vector<double>* base,
                                             std::vector<double>* wg) {
  auto rows = read_results_csv(run_dir + "/results.csv");
  if (!rows) return false;
  auto gbps = [](const SampleRow& r) { return r.gbps; };
  pair_rounds(values_by_round(*rows, "baseline", "a-to-b", gbps),
              values_by_round(*rows, "wireguard-go", "a-to-b", gbps), base, wg);
  return true;
}

}  // namespace vpnlab::bench
