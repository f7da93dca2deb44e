// Benchmark (not a test): does vpnlab's machinery change what it measures? vpnlab's
// `baseline` sample vs iperf3 run by hand between two namespaces joined by a veth pair
// (made with `ip`), same pinning (client CPU 0, server CPU 1), 10 interleaved pairs.
// vpnlab's sample is a whole `run` (fresh topology, warm-up, checks) of one sample.
// Prints each pair, the ratio's mean and its 95 % t-interval. Asserts nothing.
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "bench_support.h"
#include "lab/iperf.h"
#include "lab/product_spec.h"
#include "lab/runner.h"
#include "lab/topology.h"
#include "netns/namespace.h"
#include "netns/probes.h"

using namespace vpnlab;
using namespace vpnlab::bench;

namespace {

const char* kA = "vpnlab-fidelity-a";
const char* kB = "vpnlab-fidelity-b";

std::string read_all(const std::string& p) {
  std::ifstream in(p);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

// Same MTU and addresses as topologies/quick.toml; host defaults for everything else.
bool hand_up() {
  return run({"ip", "netns", "add", kA}) && run({"ip", "netns", "add", kB}) &&
         run({"ip", "-n", kA, "link", "add", "lan", "type", "veth", "peer", "name", "lan", "netns", kB}) &&
         run({"ip", "-n", kA, "addr", "add", "192.168.77.1/24", "dev", "lan"}) &&
         run({"ip", "-n", kB, "addr", "add", "192.168.77.2/24", "dev", "lan"}) && run({"ip", "-n", kA, "link", "set", "lan", "up"}) &&
         run({"ip", "-n", kB, "link", "set", "lan", "up"}) && run({"ip", "-n", kA, "link", "set", "lo", "up"}) &&
         run({"ip", "-n", kB, "link", "set", "lo", "up"});
}

void hand_down() {
  run({"ip", "netns", "del", kA}, "/dev/null", true);  // absent is fine
  run({"ip", "netns", "del", kB}, "/dev/null", true);
}

double hand_sample(double duration_s, const std::string& dir) {
  SpawnSpec server;
  server.argv = {"ip", "netns", "exec", kB, "taskset", "-c", "1", "iperf3", "-4", "-s", "-1"};
  server.stdout_path = dir + "/hand-server.log";
  auto srv = Child::spawn(server);
  if (!srv) return -1;
  int fd = open((std::string(kNetnsDir) + "/" + kB).c_str(), O_RDONLY | O_CLOEXEC);
  Status listening = wait_tcp_listening(fd, kIperfPort, 5, -1);
  close(fd);
  if (!listening) return -1;
  std::string out = dir + "/hand-client.json";
  if (!run({"ip", "netns", "exec", kA, "taskset", "-c", "0", "iperf3", "-4", "-c", "192.168.77.2", "-J", "-t",
            std::to_string(static_cast<int>(duration_s))},
           out))
    return -1;
  (*srv)->wait_exit(5000);
  auto s = parse_iperf_json(read_all(out));
  return s ? s->gbps : -1;
}

double vpnlab_sample(const Topology& topo, double duration_s, const std::string& dir, int round) {
  PlanOptions o;
  o.run_id = "fidelity-" + std::to_string(round);
  o.tag = "f" + std::to_string(round);
  o.products = {"baseline"};
  o.samples = 1;
  o.duration_s = duration_s;
  auto plan = make_plan(topo, o);
  if (!plan) return -1;
  // The hand-made veth pair has no receive packet steering: compare like with like.
  plan->rps = false;
  // quick.toml's warm-up stays: the hand-run namespaces are warm from the earlier pairs,
  // and a freshly built topology's first seconds are not what either side measures.
  RunOptions ro;
  ro.run_dir = dir + "/" + o.run_id;
  ro.products_dir = find_products_dir();
  auto report = run_bench(plan.value(), ro);
  if (!report || report->rows.size() != 1 || report->rows[0].status != "ok") return -1;
  return report->rows[0].gbps;
}

}  // namespace

int main(int argc, char** argv) {
  if (geteuid() != 0) {
    fprintf(stderr, "fidelity_bench: needs root\n");
    return 1;
  }
  spdlog::set_level(spdlog::level::warn);
  int pairs = argc > 1 ? std::atoi(argv[1]) : 10;
  double duration = argc > 2 ? std::atof(argv[2]) : 5;
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/quick.toml");
  if (!topo) {
    fprintf(stderr, "%s\n", topo.error().format().c_str());
    return 1;
  }
  char tmpl[] = "/tmp/vpnlab-fidelity-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  hand_down();  // leftovers of an interrupted earlier run
  if (!hand_up()) return 1;
  printf("fidelity: vpnlab baseline vs iperf3 by hand, %d pairs of %.0f s, client CPU 0, server CPU 1\n", pairs, duration);
  std::vector<double> ratios, vs, hs;
  for (int i = 0; i < pairs; ++i) {
    // Alternate which goes first, so a drift over time does not favour either.
    double v = 0, h = 0;
    if (i % 2 == 0) {
      v = vpnlab_sample(topo.value(), duration, dir, i);
      h = hand_sample(duration, dir);
    } else {
      h = hand_sample(duration, dir);
      v = vpnlab_sample(topo.value(), duration, dir, i);
    }
    if (v <= 0 || h <= 0) {
      printf("  pair %2d: failed (vpnlab %.3f, hand %.3f)\n", i + 1, v, h);
      continue;
    }
    ratios.push_back(v / h);
    vs.push_back(v);
    hs.push_back(h);
    printf("  pair %2d: vpnlab %7.3f Gbit/s   hand %7.3f Gbit/s   ratio %.3f\n", i + 1, v, h, v / h);
  }
  hand_down();
  size_t n = ratios.size();
  if (n < 2) return 1;
  double mean = 0, var = 0;
  for (double r : ratios) mean += r / static_cast<double>(n);
  for (double r : ratios) var += (r - mean) * (r - mean) / static_cast<double>(n - 1);
  // Student t quantiles (0.975) for n-1 = 1..9 degrees of freedom; 1.96 beyond.
  const double t975[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262};
  double t = n - 1 < 10 ? t975[n - 1] : 1.96;
  double half = t * std::sqrt(var / static_cast<double>(n));
  printf("ratio vpnlab/hand: mean %.3f, median %.3f, 95%% interval [%.3f, %.3f] (n = %zu)\n", mean, median(ratios), mean - half,
         mean + half, n);
  auto cv = [](const std::vector<double>& x) {
    double m = 0, v = 0;
    for (double e : x) m += e / static_cast<double>(x.size());
    for (double e : x) v += (e - m) * (e - m) / static_cast<double>(x.size() - 1);
    return 100 * std::sqrt(v) / m;
  };
  printf("sample-to-sample CV: vpnlab %.1f%%, hand %.1f%% (the interval cannot be narrower than this noise allows)\n", cv(vs), cv(hs));
  return 0;
}
