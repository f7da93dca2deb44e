// Benchmark (not a test): what each of vpnlab's meters costs the tunnel it measures. A
// CPU-bound tunnel (wireguard-go on two vCPUs) shares its CPUs with whatever vpnlab runs
// beside the load: the latency probe's echoes every 10 ms through the tunnel (and its idle
// probes before the load), the CPU counters read at both ends, the daemons' memory read
// every 100 ms, their peak usage. No single comparison can show what one of them costs, so
// this switches each off in turn (RunOptions::meters_off) and compares it with every meter
// on, in interleaved rounds: each round runs every configuration once (a whole run: lab
// built, product up, warm-up, `samples` samples, teardown), in an order shifted every round,
// so the machine's drift hits all configurations alike. A configuration's ratio in a round
// is its mean throughput over the all-on one's; its cost is that ratio's geometric mean
// minus one, with a t-interval on the log ratios at 95 % for the family of configurations
// (Bonferroni). "none" has every meter off.
//   meter_cost_bench [PRODUCT=wireguard-go [ROUNDS=8 [SAMPLES=3 [SECONDS=2 [METER,...]]]]]
// Meters not named run in every configuration. The plaintext watch rides on the first
// warm-up only (never on a sample), so it is not among them. Asserts nothing.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <spdlog/spdlog.h>

#include "bench_support.h"
#include "lab/backends/netns/netns_runtime.h"
#include "lab/base/sequential.h"
#include "lab/base/stats.h"
#include "lab/model/install_layout.h"
#include "lab/model/topology.h"
#include "lab/run/runner.h"
#include "lab/run/sample_meters.h"

using namespace vpnlab;
using namespace vpnlab::bench;

namespace {

struct Config {
  std::string name;  // "all", a meter's name, or "none"
  std::set<std::string> off;
  std::vector<double> ratios;  // per round, over "all"
  std::vector<double> gbps;    // per round, its mean
};

// One whole run of `product` with `off` left out; its samples' mean Gbit/s, or -1.
double measure(const Topology& topo, const std::string& product, int samples, double seconds,
               const std::set<std::string>& off, const std::string& dir, int run_no) {
  PlanOptions o;
  o.run_id = "meters-" + std::to_string(run_no);
  o.tag = "m" + std::to_string(run_no);
  o.products = {product};
  o.samples = samples;
  o.duration_s = seconds;
  auto plan = make_plan(topo, o);
  if (!plan) return -1;
  RunOptions ro;
  ro.run_dir = dir + "/" + o.run_id;
  ro.products_dir = products_path(own_binary_dir());
  ro.build_nodes = build_netns_runtime;
  ro.meters_off = off;
  auto report = run_bench(plan.value(), ro);
  if (!report) {
    fprintf(stderr, "  run %d: %s\n", run_no, report.error().format().c_str());
    return -1;
  }
  double sum = 0;
  int ok = 0;
  for (const auto& r : report->rows)
    if (r.status == "ok" && r.valid) sum += r.gbps, ++ok;
  return ok == samples ? sum / ok : -1;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// `family`: the configurations compared with "all"; each interval is at 1 - 0.05/family
// (Bonferroni), so "costs the tunnel" is claimed of one meter only when the family's
// chance of any such claim by noise alone stays under 5 %.
void print_config(const Config& c, int family) {
  SampleStats g = describe(c.gbps);
  if (c.name == "all") {
    printf("  %-13s %7.3f Gbit/s (mean of rounds; round-to-round CV %.1f %%)\n", c.name.c_str(), g.mean, 100 * g.cv);
    return;
  }
  std::vector<double> logs;
  for (double r : c.ratios) logs.push_back(std::log(r));
  SampleStats l = describe(logs);
  if (l.n < 2) return;
  const double level = 1 - 0.05 / family;
  const double half = t_quantile(level, static_cast<int>(l.n) - 1) * l.stdev / std::sqrt(static_cast<double>(l.n));
  const double lo = std::exp(l.mean - half), mid = std::exp(l.mean), hi = std::exp(l.mean + half);
  const char* verdict = lo > 1   ? "costs the tunnel"
                        : hi < 1 ? "off is slower (noise or order)"
                                 : "no cost this bench can see";
  printf("  %-13s %7.3f Gbit/s  off/all %.3f [%.3f, %.3f]  cost %+.1f %% [%+.1f, %+.1f]  %s\n", c.name.c_str(), g.mean,
         mid, lo, hi, 100 * (mid - 1), 100 * (lo - 1), 100 * (hi - 1), verdict);
}

}  // namespace

int main(int argc, char** argv) {
  if (geteuid() != 0) {
    fprintf(stderr, "meter_cost_bench: needs root\n");
    return 1;
  }
  spdlog::set_level(spdlog::level::warn);
  const std::string product = argc > 1 ? argv[1] : "wireguard-go";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 8;
  const int samples = argc > 3 ? std::atoi(argv[3]) : 3;
  const double seconds = argc > 4 ? std::atof(argv[4]) : 2;
  const std::vector<std::string> meters = split_commas(argc > 5 ? argv[5] : "latency,cpu,rss,daemon-usage");
  const std::vector<std::string> known = meter_names();
  for (const auto& m : meters)
    if (std::find(known.begin(), known.end(), m) == known.end()) {
      fprintf(stderr, "meter_cost_bench: no meter '%s'\n", m.c_str());
      return 2;
    }
  if (rounds < 2 || samples < 1 || seconds < 1) {
    fprintf(stderr, "usage: meter_cost_bench [PRODUCT [ROUNDS>=2 [SAMPLES>=1 [SECONDS>=1 [METER,...]]]]]\n");
    return 2;
  }
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/quick.toml");
  if (!topo) {
    fprintf(stderr, "%s\n", topo.error().format().c_str());
    return 1;
  }
  std::vector<Config> configs = {{"all", {}, {}, {}}};
  for (const auto& m : meters) configs.push_back({m, {m}, {}, {}});
  configs.push_back({"none", std::set<std::string>(meters.begin(), meters.end()), {}, {}});
  char tmpl[] = "/tmp/vpnlab-meters-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  printf(
      "meter cost: %s on quick.toml, %d rounds of %zu configurations, each a run of %d samples of %.0f s; runs in %s\n",
      product.c_str(), rounds, configs.size(), samples, seconds, dir.c_str());
  const auto t0 = Clock::now();
  int run_no = 0;
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> g(configs.size(), -1);
    for (size_t k = 0; k < configs.size(); ++k) {
      const size_t at = (k + static_cast<size_t>(r)) % configs.size();  // each round starts one later
      g[at] = measure(*topo, product, samples, seconds, configs[at].off, dir, run_no++);
    }
    if (g[0] <= 0 || std::any_of(g.begin(), g.end(), [](double v) { return v <= 0; })) {
      printf("  round %d: a run failed (kept in %s), round left out\n", r + 1, dir.c_str());
      continue;
    }
    std::string line;
    for (size_t k = 0; k < configs.size(); ++k) {
      configs[k].gbps.push_back(g[k]);
      if (k > 0) configs[k].ratios.push_back(g[k] / g[0]);
      char buf[64];
      snprintf(buf, sizeof buf, " %s %.3f", configs[k].name.c_str(), g[k]);
      line += buf;
    }
    printf("  round %d:%s\n", r + 1, line.c_str());
    fflush(stdout);
  }
  printf("%s, %.0f s; per configuration (a cost > 0: the tunnel is that much faster with the meter off):\n",
         product.c_str(), ms_since(t0) / 1000);
  const int family = static_cast<int>(configs.size()) - 1;
  printf("intervals at %.2f %% each (Bonferroni over the %d configurations compared with all-on)\n",
         100 * (1 - 0.05 / family), family);
  for (const auto& c : configs) print_config(c, family);
  return 0;
}
