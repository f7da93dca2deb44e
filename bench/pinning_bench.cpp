// Benchmark (not a test): does pinning make samples steadier here? Rounds of one pinned
// and one unpinned (--no-pin) run, order alternating, each measuring baseline and
// wireguard-go interleaved on topologies/quick.toml. Prints per mode and product the
// median, CV and the width of the median's 95 % interval. Asserts nothing.
//   pinning_bench [rounds=10] [seconds=5]
#include <unistd.h>

#include <cstdio>
#include <map>

#include <spdlog/spdlog.h>

#include "lab/backends/netns/netns_runtime.h"
#include "lab/base/fs_util.h"
#include "lab/base/stats.h"
#include "lab/model/install_layout.h"
#include "lab/model/product_spec.h"
#include "lab/model/topology.h"
#include "lab/run/runner.h"

using namespace vpnlab;

namespace {

// One run of one sample per product; Gbit/s per product, or nothing for a failed row.
std::map<std::string, double> one_round(const Topology& topo, bool pinned, double seconds, const std::string& dir,
                                        int round) {
  PlanOptions o;
  o.run_id = std::string(pinned ? "pinned-" : "unpinned-") + std::to_string(round);
  o.tag = (pinned ? "p" : "u") + std::to_string(round);
  o.products = {"baseline", "wireguard-go"};
  o.samples = 1;
  o.duration_s = seconds;
  o.cpu_count = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  o.no_pin = !pinned;
  auto plan = make_plan(topo, o);
  std::map<std::string, double> out;
  if (!plan) return out;
  plan->warmup_s = 1;
  RunOptions ro;
  ro.run_dir = dir + "/" + o.run_id;
  ro.products_dir = products_path(own_binary_dir());
  ro.build_nodes = build_netns_runtime;
  auto report = run_bench(plan.value(), ro);
  if (!report) return out;
  for (const auto& r : report->rows)
    if (r.status == "ok" && (r.valid || r.product == "baseline")) out[r.product] = r.gbps;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (geteuid() != 0) {
    fprintf(stderr, "pinning_bench: needs root\n");
    return 1;
  }
  spdlog::set_level(spdlog::level::warn);
  int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
  double seconds = argc > 2 ? std::atof(argv[2]) : 5;
  auto topo = load_topology(std::string(VPNLAB_TOPOLOGIES) + "/quick.toml");
  if (!topo) {
    fprintf(stderr, "%s\n", topo.error().format().c_str());
    return 1;
  }
  char tmpl[] = "/tmp/vpnlab-pinning-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  printf("pinning: %d rounds of pinned and unpinned runs (baseline, wireguard-go; %.0f s samples), results in %s\n",
         rounds, seconds, dir.c_str());
  std::map<std::string, std::vector<double>> samples;  // "pinned baseline" -> Gbit/s
  for (int i = 0; i < rounds; ++i) {
    for (int k = 0; k < 2; ++k) {
      bool pinned = (i + k) % 2 == 0;  // alternate which mode goes first
      auto got = one_round(topo.value(), pinned, seconds, dir, i);
      for (const auto& [product, gbps] : got)
        samples[std::string(pinned ? "pinned   " : "unpinned ") + product].push_back(gbps);
      printf("  round %2d %-8s baseline %7.3f  wireguard-go %6.3f Gbit/s\n", i + 1, pinned ? "pinned" : "unpinned",
             got.count("baseline") ? got["baseline"] : -1.0, got.count("wireguard-go") ? got["wireguard-go"] : -1.0);
      fflush(stdout);
    }
  }
  printf("\n%-24s %3s %9s %7s %21s %9s\n", "mode / product", "n", "median", "CV", "95% interval", "width");
  for (const auto& [name, values] : samples) {
    SampleStats s = describe(values);
    printf("%-24s %3zu %9.3f %6.1f%% %10.3f-%-10.3f %8.1f%%%s\n", name.c_str(), s.n, s.median, 100 * s.cv, s.ci_low,
           s.ci_high, s.median > 0 ? 100 * (s.ci_high - s.ci_low) / s.median : 0,
           s.coverage < 0.95 ? " (coverage < 95 %)" : "");
  }
  return 0;
}
