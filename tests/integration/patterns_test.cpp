// Methodology on real namespaces: multi-process patterns sum right, site-to-site traffic
// crosses the gateways' tunnel (and a mis-routed sample is caught), every daemon thread
// is pinned, CPU accounting adds up, and link shaping is applied or refused by name.
#include <sched.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "lab/base/cpu_stat.h"
#include "lab/kernel/offloads.h"
#include "lab/kernel/probes.h"
#include "lab/record/results_csv.h"
#include "lab/run/keys.h"
#include "lab/run/product_session.h"
#include "lab/run/sample.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

// A topology file in a temporary directory, for tests that need one of their own.
std::string write_topology(const std::string& text) {
  std::string path = make_temp_dir("topo") + "/t.toml";
  std::ofstream(path) << text;
  return path;
}

const char* kThreeNodes = R"([lab]
name = "pat"
[overlay]
subnet = "10.77.0.0/24"
mtu = 1400
[[node]]
name = "a"
cpus = [0]
load_cpus = [0]
[[node]]
name = "b"
cpus = [1]
[[node]]
name = "c"
cpus = [1]
[[link]]
name = "lan"
nodes = ["a", "b", "c"]
subnet = "192.168.77.0/24"
[bench]
products = ["baseline"]
[[bench.test]]
name = "one-to-two"
client = "a"
server = ["b", "c"]
streams = 2
[[bench.test]]
name = "bidir"
client = "a"
server = "b"
bidirectional = true
[[bench.test]]
name = "udp"
client = "a"
server = "b"
udp = true
bitrate = "40M"
)";

double json_receiver_gbps(const std::string& path) {
  auto j = nlohmann::json::parse(read_file(path));
  return j["end"]["sum_received"]["bits_per_second"].get<double>() / 1e9;
}

std::vector<std::string> allowed_cpus_of_threads(pid_t pid) {
  std::vector<std::string> out;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream in(task.path() / "status");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("Cpus_allowed_list:", 0) == 0) out.push_back(line.substr(line.find_first_not_of(" \t", 18)));
  }
  return out;
}

}  // namespace

TEST(Patterns, OneToManyBidirectionalAndUdpSumTheirProcesses) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  ShortRun run = short_run({"baseline", "wireguard-go"}, VPNLAB_PRODUCTS_DIR, 1, write_topology(kThreeNodes));
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 6u);
  for (const auto& r : run.report->rows) {
    EXPECT_EQ(r.status, "ok") << r.product << "/" << r.test << ": " << r.reason;
    EXPECT_TRUE(r.valid) << r.product << "/" << r.test << ": " << r.reason;
    if (r.test == "one-to-two") {
      // Two processes, one per server; the row is their sum, read back from the raw JSON.
      EXPECT_EQ(r.processes, 2);
      EXPECT_EQ(r.pattern, "one-to-many");
      std::string raw = run.run_dir + "/raw/" + r.product + "/one-to-two/";
      double sum = json_receiver_gbps(raw + "sample-1-p1.json") + json_receiver_gbps(raw + "sample-1-p2.json");
      EXPECT_NEAR(r.gbps, sum, 1e-5);
      // Each peer's share, read from the same files, and Jain's index over the two.
      const double b = json_receiver_gbps(raw + "sample-1-p1.json"), c = json_receiver_gbps(raw + "sample-1-p2.json");
      EXPECT_EQ(r.peer_gbps.substr(0, 2), "b:") << r.peer_gbps;
      EXPECT_NE(r.peer_gbps.find(";c:"), std::string::npos) << r.peer_gbps;
      EXPECT_NEAR(r.fairness, (b + c) * (b + c) / (2 * (b * b + c * c)), 1e-3);
      EXPECT_NE(r.peer_retransmits.find(";c:"), std::string::npos) << r.peer_retransmits;
    } else {
      EXPECT_EQ(r.fairness, 0) << "one peer: no fairness";
      EXPECT_TRUE(r.peer_gbps.empty());
    }
    if (r.test == "bidir") {
      EXPECT_EQ(r.direction, "bidirectional");
    }
    if (r.test == "udp") {
      EXPECT_EQ(r.protocol, "udp");
      EXPECT_NEAR(r.gbps, 0.040, 0.006) << "UDP at 40 Mbit/s offered";
      // 40 Mbit/s of 1372-byte datagrams (MTU 1400 - 28) is about 3640 packets/s.
      EXPECT_NEAR(r.pps, 40e6 / (1372 * 8), 900) << r.product;
    }
    if (r.product == "wireguard-go") {
      EXPECT_GT(r.daemon_rss_kb, 1000);
      EXPECT_GT(r.daemon_threads, 1);
      EXPECT_GT(r.latency_probes, 50);
      EXPECT_GT(r.latency_p99_ms, 0);
    }
  }
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

TEST(Routing, SiteToSiteTrafficCrossesTheGatewaysTunnel) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  ShortRun run =
      short_run({"baseline", "wireguard-go"}, VPNLAB_PRODUCTS_DIR, 1, VPNLAB_TOPOLOGIES "/site-to-site.toml");
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 4u);
  for (const auto& r : run.report->rows) {
    EXPECT_TRUE(r.valid) << r.product << "/" << r.test << ": " << r.reason;
    EXPECT_EQ(r.client, "c1");
  }
  for (const auto& p : run.report->products) EXPECT_TRUE(p.plaintext.empty()) << p.product << ": " << p.plaintext;
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

// The OPNsense seed's question: OpenVPN (and the other Debian products that can route a
// subnet) between two sites. Each carries the sites in its own way: OpenVPN and fastd take
// whatever the lab routes into their TUN device, tinc needs a Subnet line per site in the
// gateway's host file, strongSwan traffic selectors that name the sites. A product that
// drops a site's packets gives a row with no throughput or one that never crossed the tunnel.
TEST(Routing, SiteToSiteDebianProductsCarryTheSites) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("openvpn");
  VPNLAB_REQUIRE_PROGRAM("tincd");
  VPNLAB_REQUIRE_PROGRAM("fastd");
  VPNLAB_REQUIRE_PROGRAM("swanctl");
  ShortRun run = short_run({"baseline", "openvpn", "tinc", "fastd", "strongswan-libipsec"}, VPNLAB_PRODUCTS_DIR, 1,
                           VPNLAB_TOPOLOGIES "/site-to-site.toml");
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 10u);
  for (const auto& r : run.report->rows) {
    EXPECT_TRUE(r.valid) << r.product << "/" << r.test << ": " << r.reason;
    EXPECT_EQ(r.client, "c1");
  }
  for (const auto& p : run.report->products) EXPECT_TRUE(p.plaintext.empty()) << p.product << ": " << p.plaintext;
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

// The gateways route the sites around the tunnel (the baseline's routes) while the
// product runs: iperf3 still works, but the overlay counters stay flat and the row says so.
TEST(Routing, AMisroutedSampleFailsTheTunnelCheck) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/site-to-site.toml");
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go");
  ASSERT_TRUE(spec.ok());
  Plan vpn_plan = plan.vpn_only();
  std::string dir = make_temp_dir("misroute");
  std::vector<std::string> names;
  for (const auto& n : plan.nodes) names.push_back(n.name);
  auto keys = prepare_node_keys(dir + "/keys", names);
  ASSERT_TRUE(keys.ok());
  std::unique_ptr<NodeRuntime> topo;
  auto session = start_session(plan, vpn_plan, spec.value(), keys.value(), dir, &topo);
  ASSERT_TRUE(session.ok()) << session.error().format();
  ASSERT_TRUE(topo->add_routes(plan, PlanRoute::When::tunnel).ok());
  SampleContext sc{.plan = &plan,
                   .test = &plan.tests[0],
                   .spec = &spec.value(),
                   .nodes = topo.get(),
                   .session = session->get(),
                   .raw_dir = dir,
                   .log_dir = dir,
                   .interrupt_fd = -1};
  bool interrupted = false;
  SampleRow good = run_sample(sc, "routed", 1, &interrupted);
  EXPECT_TRUE(good.valid) << good.reason;
  ASSERT_TRUE(topo->add_routes(plan, PlanRoute::When::baseline).ok());  // around the tunnel
  SampleRow bad = run_sample(sc, "misrouted", 1, &interrupted);
  EXPECT_EQ(bad.status, "ok") << bad.reason;
  EXPECT_FALSE(bad.valid);
  EXPECT_NE(bad.reason.find("did not cross the tunnel"), std::string::npos) << bad.reason;
  (*session)->stop();
  EXPECT_TRUE(topo->teardown(10).ok());
}

TEST(Pinning, EveryDaemonThreadIsPinnedAlsoThoseStartedUnderLoad) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs 2 CPUs";
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/quick.toml");
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go");
  ASSERT_TRUE(spec.ok());
  std::string dir = make_temp_dir("pin");
  auto keys = prepare_node_keys(dir + "/keys", {"a", "b"});
  std::unique_ptr<NodeRuntime> topo;
  auto session = start_session(plan, plan, spec.value(), keys.value(), dir, &topo);
  ASSERT_TRUE(session.ok()) << session.error().format();
  SampleContext sc{.plan = &plan,
                   .test = &plan.tests[0],
                   .spec = &spec.value(),
                   .nodes = topo.get(),
                   .session = session->get(),
                   .raw_dir = dir,
                   .log_dir = dir,
                   .interrupt_fd = -1};
  bool interrupted = false;
  SampleRow row = run_sample(sc, "load", 2, &interrupted);
  EXPECT_TRUE(row.valid) << row.reason;
  ASSERT_EQ((*session)->daemon_pids().size(), 2u);
  for (const auto& [node, pid] : (*session)->daemon_pids()) {
    std::string want = std::to_string(plan.node(node)->cpus.front());
    auto threads = allowed_cpus_of_threads(pid);
    EXPECT_GT(threads.size(), 1u);
    for (const auto& allowed : threads) EXPECT_EQ(allowed, want) << node << " thread of pid " << pid;
    // A thread that changed its own affinity is put back before the next sample.
    cpu_set_t all;
    CPU_ZERO(&all);
    CPU_SET(0, &all);
    CPU_SET(1, &all);
    ASSERT_EQ(sched_setaffinity(pid, sizeof all, &all), 0);
    ASSERT_TRUE((*session)->repin_daemons().ok());
    for (const auto& allowed : allowed_cpus_of_threads(pid)) EXPECT_EQ(allowed, want);
  }
  (*session)->stop();
  EXPECT_TRUE(topo->teardown(10).ok());
}

TEST(Cpu, APinnedTwoSecondBusyLoopIsAccountedAsTwoCpuSeconds) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("timeout");
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs 2 CPUs";
  SpawnSpec spin;
  spin.argv = {"timeout", "2", "sh", "-c", "while :; do :; done"};
  spin.cpus = {1};
  spin.stdout_path = make_temp_dir("spin") + "/spin.log";
  CpuTimes before = read_cpu_times();
  std::vector<CpuTimes> per_cpu_before = read_cpu_times_per_cpu();
  auto child = Child::spawn(spin);
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE((*child)->wait_exit(5000));
  double on_cpu1 = (read_cpu_times_per_cpu()[1] - per_cpu_before[1]).busy();
  double everywhere = (read_cpu_times() - before).busy();
  EXPECT_NEAR(on_cpu1, 2.0, 0.1);
  EXPECT_GE(everywhere, 1.9);  // the system-wide figure samples use includes it
}

TEST(Offloads, TheNoOffloadBaselineTurnsSegmentationOff) {
  VPNLAB_REQUIRE_ROOT();
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/quick.toml");
  auto topo = LiveTopology::build(plan);
  ASSERT_TRUE(topo.ok());
  int fd = (*topo)->ns_of_node("a").fd.get();
  auto before = read_offloads(fd, "lan");
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->at("tso")) << "veth starts with TSO on";
  ASSERT_TRUE(set_segmentation_offloads(fd, "lan", false).ok());
  auto after = read_offloads(fd, "lan");
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->at("tso"));
  EXPECT_FALSE(after->at("gso"));
  EXPECT_FALSE(after->at("gro"));
  EXPECT_TRUE((*topo)->teardown(10).ok());
}

TEST(Shaping, ARateOnTheLinkLimitsTheBaseline) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string text = read_file(VPNLAB_TOPOLOGIES "/quick.toml");
  text.replace(text.find("mtu = 1500"), 10, "mtu = 1500\nrate = \"200mbit\"");
  ShortRun run = short_run({"baseline"}, VPNLAB_PRODUCTS_DIR, 1, write_topology(text));
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 1u);
  EXPECT_GT(run.report->rows[0].gbps, 0.15);
  EXPECT_LE(run.report->rows[0].gbps, 0.205);
}

TEST(Shaping, DelayUsesNetemOrIsRefusedNamingIt) {
  VPNLAB_REQUIRE_ROOT();
  std::string text = read_file(VPNLAB_TOPOLOGIES "/quick.toml");
  text.replace(text.find("mtu = 1500"), 10, "mtu = 1500\ndelay = \"5ms\"");
  Plan plan = plan_for(write_topology(text));
  auto topo = LiveTopology::build(plan);
  if (!topo.ok()) {
    // This kernel has no netem: the error names the qdisc and the link, never a silent pass.
    EXPECT_NE(topo.error().message.find("netem"), std::string::npos) << topo.error().format();
    EXPECT_NE(topo.error().message.find("link 'lan'"), std::string::npos) << topo.error().format();
    EXPECT_FALSE(topo.error().hint.empty());
    EXPECT_TRUE(list_namespaces(plan.ns_prefix).empty());
    return;
  }
  double rtt = 0;
  ASSERT_TRUE(
      ping_until_answered((*topo)->ns_of_node("a").fd.get(), plan.underlay_address("b", "lan"), 5, -1, &rtt).ok());
  EXPECT_GE(rtt, 9.5);  // 5 ms each way
  EXPECT_TRUE((*topo)->teardown(10).ok());
}

// rr, crr and idle latency through the real tunnel, run as a user runs them: every row
// valid with a rate and percentiles, their raw output kept, the table in the summary.
TEST(Transactions, RrCrrAndIdleLatencyGiveValidRowsThroughTheTunnel) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string topo = write_topology(two_pinned_nodes("tx") + R"([bench]
products = ["baseline", "wireguard-go"]
samples = 1
duration = "2s"
warmup = "0s"
[[bench.test]]
name = "rr"
kind = "rr"
client = "a"
server = "b"
size = 100
[[bench.test]]
name = "crr"
kind = "crr"
client = "a"
server = "b"
[[bench.test]]
name = "idle"
kind = "latency"
client = "a"
server = "b"
)");
  std::string out = make_temp_dir("tx-out");
  auto run = vpnlab_cli({"run", topo, "--out", out});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  std::string dir = run_dir_in(out);
  auto rows = read_results_csv(dir + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_EQ(rows->size(), 6u);
  for (const auto& r : *rows) {
    std::string who = r.product + "/" + r.test + " sample " + std::to_string(r.sample) + ": ";
    EXPECT_EQ(r.status, "ok") << who << r.reason;
    EXPECT_TRUE(r.valid) << who << r.reason;
    EXPECT_EQ(r.kind, r.test == "idle" ? "latency" : r.test) << who;
    EXPECT_GT(r.tps, r.test == "idle" ? 90 : 100) << who;
    EXPECT_GT(r.tx_p50_ms, 0) << who;
    EXPECT_LE(r.tx_p50_ms, r.tx_p99_ms) << who;
    const std::string raw = dir + "/raw/" + r.product + "/" + r.test + "/sample-" + std::to_string(r.sample);
    const std::string file = raw + (r.test == "rr" ? "-rr.json" : r.test == "crr" ? "-crr.json" : "-rtt.txt");
    EXPECT_TRUE(std::filesystem::exists(file)) << file;
    // rr: every transaction on one connection; crr: a connection each.
    if (r.test == "rr") {
      EXPECT_NE(read_file(file).find("\"connections\":1,"), std::string::npos) << read_file(file);
    } else if (r.test == "crr") {
      EXPECT_EQ(read_file(file).find("\"connections\":1,"), std::string::npos) << read_file(file);
    }
  }
  EXPECT_NE((run.out + run.err).find("request/response tests"), std::string::npos) << run.out << run.err;
  EXPECT_TRUE(pids_named("vpnlab-crr").empty());
}

// The UDP sweep's zero-loss search stays within its bounds: at most `steps` trials per
// sample, each a sample of its own on disk, the rate found no higher than the one asked
// for, and a row per payload size.
TEST(Transactions, UdpSweepZeroLossSearchEndsWithinItsBounds) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string topo = write_topology(two_pinned_nodes("zl") + R"([bench]
products = ["baseline"]
samples = 1
duration = "4s"
warmup = "0s"
[[bench.test]]
name = "udp"
client = "a"
server = "b"
udp = true
bitrate = "2G"
sizes = [256, 0]
zero_loss = true
max_loss = 1
steps = 3
)");
  std::string out = make_temp_dir("zl-out");
  const auto start = std::chrono::steady_clock::now();
  auto run = vpnlab_cli({"run", topo, "--out", out});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  std::string dir = run_dir_in(out);
  auto rows = read_results_csv(dir + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].test, "udp-256");
  EXPECT_EQ((*rows)[0].payload_bytes, 256);
  EXPECT_EQ((*rows)[1].test, "udp-mtu");
  EXPECT_EQ((*rows)[1].payload_bytes, 1372);
  for (const auto& r : *rows) {
    EXPECT_EQ(r.status, "ok") << r.test << ": " << r.reason;
    EXPECT_LE(r.zero_loss_bps, 2e9 * 1.01) << r.test;
    EXPECT_GT(r.offered_bps, 0) << r.test;
    if (r.zero_loss_bps > 0) {
      EXPECT_LE(r.loss_pct, 1.0) << r.test;
      EXPECT_DOUBLE_EQ(r.zero_loss_bps, r.offered_bps) << r.test;
    }
    int trials = 0;
    for (int k = 1; k <= 5; ++k)
      if (std::filesystem::exists(dir + "/raw/baseline/" + r.test + "/sample-1-try" + std::to_string(k) + ".json"))
        ++trials;
    EXPECT_GE(trials, 1) << r.test;
    EXPECT_LE(trials, 3) << r.test;
  }
  EXPECT_NE((run.out + run.err).find("UDP by payload size"), std::string::npos) << run.out << run.err;
  // The trials' seconds are the run's measuring (1 s each: 4 s / 3 steps, whole seconds), not
  // the asked 4 s a sample.
  int all_trials = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir + "/raw/baseline"))
    all_trials += e.path().filename().string().find("-try") != std::string::npos && e.path().extension() == ".json" &&
                  e.path().filename().string().rfind("sample-", 0) == 0;
  const auto env = nlohmann::json::parse(read_file(dir + "/environment.json"));
  EXPECT_NEAR(env["timings"]["phases"]["measuring"].get<double>(), all_trials * 1.0, 0.01) << all_trials << " trials";
  // Bounded by its trials (at most 3 per size, counted above); the time is a figure.
  std::printf("[ figures ] zero-loss search, two sizes: %.1f s\n", took);
}
