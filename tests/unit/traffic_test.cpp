// Test patterns expanded into iperf3 processes, routed topologies planned into routes,
// default pinning, latency quantiles and the iperf3 JSON of the newer patterns.
#include <gtest/gtest.h>

#include "lab/kernel/latency_probe.h"
#include "lab/model/plan.h"
#include "lab/model/topology.h"
#include "lab/model/traffic.h"
#include "lab/run/iperf.h"

using namespace vpnlab;

namespace {

Plan plan_of(const std::string& file, int cpu_count = 0, bool no_pin = false) {
  auto topo = load_topology(std::string(VPNLAB_TOPOLOGIES) + "/" + file);
  EXPECT_TRUE(topo.ok()) << (topo.ok() ? "" : topo.error().format());
  PlanOptions o{"r", "t"};
  o.cpu_count = cpu_count;
  o.no_pin = no_pin;
  auto plan = make_plan(topo.value(), o);
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().format());
  return plan.value();
}

const PlanTest& test_named(const Plan& p, const std::string& name) {
  for (const auto& t : p.tests)
    if (t.spec.name == name) return t;
  throw std::runtime_error("no test " + name);
}

std::string traffic_topology(const std::string& test_body) {
  return "[lab]\nname = \"x\"\n[overlay]\nsubnet = \"10.77.0.0/24\"\nmtu = 1400\n"
         "[[node]]\nname = \"a\"\nload_cpus = [0, 1]\n[[node]]\nname = \"b\"\n[[node]]\nname = \"c\"\n"
         "[[link]]\nname = \"lan\"\nnodes = [\"a\", \"b\", \"c\"]\nsubnet = \"192.168.77.0/24\"\n"
         "[bench]\nproducts = [\"baseline\"]\n[[bench.test]]\nname = \"t\"\nclient = \"a\"\n" +
         test_body;
}

}  // namespace

TEST(Traffic, OneToManyGivesEveryServerAProcessAndKeepsTheStreamTotal) {
  Plan p = plan_of("mesh5.toml", 2);
  const PlanTest& t = test_named(p, "one-to-four");
  auto procs = expand_traffic(p, t, 5201);
  ASSERT_EQ(procs.size(), 4u);  // a has one load CPU, but every server needs its own process
  int streams = 0;
  for (size_t i = 0; i < procs.size(); ++i) {
    EXPECT_EQ(procs[i].server, t.spec.servers[i]);
    EXPECT_EQ(procs[i].port, 5201 + static_cast<int>(i));
    EXPECT_EQ(procs[i].client_cpu, 0);  // a: node 0 -> CPU 0 by default
    streams += procs[i].parallel;
  }
  EXPECT_EQ(streams, 4);
  EXPECT_EQ(traffic_pattern(t.spec), "one-to-many");
  EXPECT_EQ(traffic_pattern(test_named(p, "four-to-one").spec), "many-to-one");
  EXPECT_EQ(traffic_direction(test_named(p, "bidirectional").spec), "bidirectional");
}

TEST(Traffic, StreamsAreSpreadOverOneProcessPerLoadCpu) {
  auto topo = parse_topology_text(traffic_topology("server = \"b\"\nstreams = 5\n"), "x.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  auto plan = make_plan(topo.value(), PlanOptions{"r", "t"});
  ASSERT_TRUE(plan.ok());
  auto procs = expand_traffic(plan.value(), plan->tests[0], 6000);
  ASSERT_EQ(procs.size(), 2u);  // k = 2 load CPUs
  EXPECT_EQ(procs[0].parallel, 3);
  EXPECT_EQ(procs[1].parallel, 2);
  EXPECT_EQ(procs[0].client_cpu, 0);
  EXPECT_EQ(procs[1].client_cpu, 1);
  EXPECT_EQ(procs[0].server, "b");
  EXPECT_EQ(procs[1].server, "b");
  // One stream is one process, whatever the CPUs.
  auto one = parse_topology_text(traffic_topology("server = \"b\"\n"), "x.toml");
  auto one_plan = make_plan(one.value(), PlanOptions{"r", "t"});
  EXPECT_EQ(expand_traffic(one_plan.value(), one_plan->tests[0], 6000).size(), 1u);
}

TEST(Traffic, UdpBitrateIsTheTotalAndLengthDefaultsToTheMtu) {
  auto topo =
      parse_topology_text(traffic_topology("server = \"b\"\nstreams = 4\nudp = true\nbitrate = \"400M\"\n"), "x.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  auto plan = make_plan(topo.value(), PlanOptions{"r", "t"});
  auto procs = expand_traffic(plan.value(), plan->tests[0], 6000);
  ASSERT_EQ(procs.size(), 2u);
  EXPECT_DOUBLE_EQ(procs[0].bitrate_bps, 100e6);  // per stream: 400M over 4 streams
  EXPECT_EQ(procs[0].length, 1372);               // 1400 - 28
  IperfClientOptions o;
  o.server_address = "10.77.0.2";
  o.udp = true;
  o.bitrate_bps = procs[0].bitrate_bps;
  o.length = procs[0].length;
  auto argv = iperf_client_argv(o);
  std::string joined;
  for (const auto& a : argv) joined += a + " ";
  EXPECT_NE(joined.find("-u -b 100000000 -l 1372"), std::string::npos) << joined;
}

TEST(Traffic, PatternErrorsNameTheLine) {
  auto error = [](const std::string& body) {
    auto r = parse_topology_text(traffic_topology(body), "x.toml");
    return r.ok() ? std::string() : r.error().where_and_what();
  };
  EXPECT_EQ(error("server = [\"b\", \"c\"]\nstreams = 1\n"),
            "x.toml:23:11: test 't': 1 stream(s) cannot reach 2 servers");
  EXPECT_EQ(error("server = [\"b\", \"c\"]\n"), "") << "left out, streams is one per server";
  EXPECT_EQ(error("server = [\"b\", \"b\"]\nstreams = 2\n"), "x.toml:22:16: test 't': server 'b' is listed twice");
  EXPECT_EQ(error("server = [\"b\", \"z\"]\nstreams = 2\n"), "x.toml:22:16: test 't': node 'z' is not defined");
  EXPECT_EQ(error("server = \"b\"\nudp = true\n"),
            "x.toml:23:7: test 't': a UDP test needs 'bitrate' (iperf3 would send 1 Mbit/s)");
  EXPECT_EQ(error("server = \"b\"\nudp = true\nbitrate = \"1G\"\nlength = 1400\n"),
            "x.toml:25:10: test 't': length 1400 does not fit the overlay MTU 1400");
  EXPECT_EQ(error("server = \"b\"\nreverse = true\nbidirectional = true\n"),
            "x.toml:24:17: test 't': 'reverse' and 'bidirectional' together");
  EXPECT_EQ(error("server = \"b\"\nlength = 100\n"),
            "x.toml:23:10: test 't': 'length' is the UDP payload size and this test is TCP");
}

TEST(Routing, SiteToSiteRoutesClientsThroughTheGatewaysTunnel) {
  Plan p = plan_of("site-to-site.toml");
  const PlanNode& c1 = *p.node("c1");
  const PlanNode& gw1 = *p.node("gw1");
  EXPECT_FALSE(c1.vpn);
  EXPECT_EQ(c1.vpn_node(), "gw1");
  EXPECT_TRUE(gw1.vpn);
  ASSERT_EQ(gw1.sites.size(), 1u);
  EXPECT_EQ(gw1.sites[0].str(), "192.168.1.0/24");
  // Only gw1's link toward gw2 carries tunnel packets; its site link does not.
  for (const auto& u : gw1.underlay) EXPECT_EQ(u.carrier, u.link == "wan") << u.link;
  for (const auto& u : c1.underlay) EXPECT_FALSE(u.carrier);
  // c1: default via gw1; gw1: site2 via gw2's overlay address (products) or its wan address (baseline).
  std::vector<std::string> routes;
  for (const auto& r : p.routes)
    routes.push_back(r.node + " " + (r.dest.length ? r.dest.str() : "default") + " " + r.via.str() + " " +
                     (r.when == PlanRoute::When::tunnel     ? "tunnel"
                      : r.when == PlanRoute::When::baseline ? "baseline"
                                                            : "always"));
  EXPECT_EQ(routes, (std::vector<std::string>{
                        "c1 default 192.168.1.2 always", "c2 default 192.168.2.1 always",
                        "gw1 192.168.2.0/24 10.77.0.3 tunnel", "gw1 192.168.2.0/24 192.168.77.2 baseline",
                        "gw2 192.168.1.0/24 10.77.0.2 tunnel", "gw2 192.168.1.0/24 192.168.77.1 baseline"}));
  const PlanTest& t = test_named(p, "c1-to-c2");
  EXPECT_EQ(t.underlay_link(), "wan");
  EXPECT_EQ(p.target_address(t, 0, true).str(), "192.168.2.2");  // c2's site address, tunnel or not
  EXPECT_EQ(p.target_address(t, 0, false).str(), "192.168.2.2");
  EXPECT_EQ(p.vpn_nodes().size(), 2u);
}

TEST(Routing, GatewayErrors) {
  auto error = [](const std::string& extra_node, const std::string& overlay_nodes) {
    std::string text = "[lab]\nname = \"x\"\n[overlay]\nsubnet = \"10.77.0.0/24\"\n" + overlay_nodes +
                       "[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n" + extra_node +
                       "[[link]]\nname = \"lan\"\nnodes = [\"a\", \"b\"]\nsubnet = \"192.168.77.0/24\"\n"
                       "[bench]\n[[bench.test]]\nname = \"t\"\nclient = \"a\"\nserver = \"b\"\n";
    auto r = parse_topology_text(text, "x.toml");
    return r.ok() ? std::string() : r.error().where_and_what();
  };
  EXPECT_EQ(error("[[node]]\nname = \"c\"\ngateway = \"a\"\n", "nodes = [\"a\", \"b\"]\n"),
            "x.toml:12:11: node 'c': no link connects it to its gateway 'a'");
  EXPECT_EQ(error("[[node]]\nname = \"c\"\ngateway = \"a\"\n", ""),
            "x.toml:11:11: node 'c' runs the VPN itself, so it has no gateway");
  EXPECT_EQ(error("[[node]]\nname = \"c\"\ngateway = \"q\"\n", "nodes = [\"a\", \"b\"]\n"),
            "x.toml:12:11: node 'c': gateway: node 'q' is not defined");
  EXPECT_EQ(error("", "nodes = [\"a\"]\n"), "x.toml:5:9: overlay: a VPN needs at least two nodes");
}

TEST(Pinning, DefaultsAreComputedAndSharingIsSaid) {
  // mesh5: a sends to b, c, d, e. On 2 CPUs a gets one to itself, the receivers the other.
  Plan p = plan_of("mesh5.toml", 2);
  EXPECT_EQ(p.node("a")->cpus, std::vector<int>{0});
  for (const char* n : {"b", "c", "d", "e"}) EXPECT_EQ(p.node(n)->cpus, std::vector<int>{1}) << n;
  EXPECT_EQ(p.node("c")->load_cpus, std::vector<int>{1});
  EXPECT_TRUE(p.node("e")->default_cpus);
  std::string notes;
  for (const auto& n : p.pin_notes) notes += n + "\n";
  EXPECT_NE(notes.find("CPU 0: a (daemon + iperf3), and the softirq work of packets received there"), std::string::npos)
      << notes;
  EXPECT_NE(notes.find("CPU 1: b (daemon + iperf3), c (daemon + iperf3), d (daemon + iperf3), e (daemon + iperf3)"),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("shared"), std::string::npos) << notes;
  EXPECT_NE(notes.find("node e: computed cpus 1, load_cpus 1 (not set in the topology)"), std::string::npos) << notes;
  EXPECT_TRUE(p.pin_warnings.empty());
  Plan unpinned = plan_of("mesh5.toml", 2, true);
  EXPECT_FALSE(unpinned.pinned);
  EXPECT_TRUE(unpinned.node("a")->cpus.empty());
  EXPECT_TRUE(unpinned.node("a")->load_cpus.empty());
  EXPECT_TRUE(unpinned.pin_warnings.empty());
  // Given CPUs are kept.
  Plan quick = plan_of("quick.toml", 2);
  EXPECT_FALSE(quick.node("a")->default_cpus);
  EXPECT_EQ(quick.node("b")->cpus, std::vector<int>{1});
  // Written cpus, computed load_cpus: the note says which is which.
  Plan field = plan_of("field-paths.toml", 2);
  std::string field_notes;
  for (const auto& n : field.pin_notes) field_notes += n + "\n";
  EXPECT_NE(field_notes.find("node r2: cpus 1 as written, computed load_cpus 1 (not set in the topology)"),
            std::string::npos)
      << field_notes;
}

namespace {

// n nodes on one bridge, the tests as "client>server,server" strings.
Plan bridge_plan(int nodes, const std::vector<std::string>& tests, int cpus) {
  std::string text = "[lab]\nname = \"pin\"\n[overlay]\nsubnet = \"10.77.0.0/24\"\n";
  std::string names;
  for (int i = 0; i < nodes; ++i) {
    std::string n(1, static_cast<char>('a' + i));
    text += "[[node]]\nname = \"" + n + "\"\n";
    names += (i ? ", \"" : "\"") + n + "\"";
  }
  text += "[[link]]\nname = \"lan\"\nnodes = [" + names + "]\nsubnet = \"192.168.77.0/24\"\n[bench]\n";
  int k = 0;
  for (const auto& t : tests) {
    std::string servers;
    for (char c : t.substr(2)) servers += c == ',' ? std::string(", ") : "\"" + std::string(1, c) + "\"";
    text += "[[bench.test]]\nname = \"t" + std::to_string(++k) + "\"\nclient = \"" + t.substr(0, 1) + "\"\nserver = [" +
            servers + "]\n";
  }
  auto topo = parse_topology_text(text, "pin.toml");
  EXPECT_TRUE(topo.ok()) << (topo.ok() ? "" : topo.error().where_and_what());
  PlanOptions po{"r", "t"};
  po.cpu_count = cpus;
  auto plan = make_plan(topo.value(), po);
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().where_and_what());
  return plan.value();
}

int cpu_of(const Plan& p, const char* node) { return p.node(node)->cpus.at(0); }

}  // namespace

TEST(Pinning, SenderAndReceiverLandOnDifferentCpus) {
  // The issue's case: 3 nodes, a -> c. Node order used to put a and c on CPU 0.
  Plan three = bridge_plan(3, {"a>c"}, 2);
  EXPECT_NE(cpu_of(three, "a"), cpu_of(three, "c"));
  EXPECT_TRUE(three.pin_warnings.empty());
  // 2 nodes on 2 and 4 CPUs.
  EXPECT_NE(cpu_of(bridge_plan(2, {"a>b"}, 2), "a"), cpu_of(bridge_plan(2, {"a>b"}, 2), "b"));
  Plan two4 = bridge_plan(2, {"a>b"}, 4);
  EXPECT_NE(cpu_of(two4, "a"), cpu_of(two4, "b"));
  // a -> b, c on 4 CPUs: three CPUs, one each.
  Plan fan = bridge_plan(3, {"a>b,c"}, 4);
  EXPECT_NE(cpu_of(fan, "a"), cpu_of(fan, "b"));
  EXPECT_NE(cpu_of(fan, "a"), cpu_of(fan, "c"));
  EXPECT_NE(cpu_of(fan, "b"), cpu_of(fan, "c"));
  // 5 nodes, a -> b and c -> d, e idle: each pair split on 2 CPUs.
  Plan five = bridge_plan(5, {"a>b", "c>d"}, 2);
  EXPECT_NE(cpu_of(five, "a"), cpu_of(five, "b"));
  EXPECT_NE(cpu_of(five, "c"), cpu_of(five, "d"));
  EXPECT_TRUE(five.pin_warnings.empty());
  // Unavoidable: a -> b, b -> c, c -> a on 2 CPUs (an odd cycle); said, per test.
  Plan cycle = bridge_plan(3, {"a>b", "b>c", "c>a"}, 2);
  ASSERT_EQ(cycle.pin_warnings.size(), 1u);
  EXPECT_NE(cycle.pin_warnings[0].find("sending node "), std::string::npos) << cycle.pin_warnings[0];
  EXPECT_NE(cycle.pin_warnings[0].find("share CPU"), std::string::npos) << cycle.pin_warnings[0];
  // One CPU: every test warns.
  EXPECT_EQ(bridge_plan(2, {"a>b"}, 1).pin_warnings.size(), 1u);
  // 5 nodes on 4 CPUs, a -> all: a alone on its CPU.
  Plan star = bridge_plan(5, {"a>b,c,d,e"}, 4);
  for (const char* n : {"b", "c", "d", "e"}) EXPECT_NE(cpu_of(star, "a"), cpu_of(star, n)) << n;
}

TEST(Pinning, SiteToSiteSplitsTheSendingSiteFromTheReceivingOne) {
  Plan p = plan_of("site-to-site.toml", 2);
  EXPECT_TRUE(p.pin_warnings.empty()) << p.pin_warnings.front();
}

TEST(Latency, NearestRankQuantiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  EXPECT_DOUBLE_EQ(LatencyProbe::quantile(v, 0.5), 50);
  EXPECT_DOUBLE_EQ(LatencyProbe::quantile(v, 0.99), 99);
  EXPECT_DOUBLE_EQ(LatencyProbe::quantile(v, 1.0), 100);
  EXPECT_DOUBLE_EQ(LatencyProbe::quantile({}, 0.99), 0);
  EXPECT_DOUBLE_EQ(LatencyProbe::quantile({7}, 0.99), 7);
}

TEST(IperfJson, BidirectionalAndUdpSums) {
  auto bidir = parse_iperf_json(
      R"({"end": {"sum_sent": {"bytes": 1000, "retransmits": 2}, "sum_received": {"bytes": 900, "bits_per_second": 9e8, "seconds": 1},
    "sum_sent_bidir_reverse": {"bytes": 500, "retransmits": 1}, "sum_received_bidir_reverse": {"bytes": 400, "bits_per_second": 4e8},
    "cpu_utilization_percent": {"host_total": 95.5, "remote_total": 40}}})");
  ASSERT_TRUE(bidir.ok());
  EXPECT_DOUBLE_EQ(bidir->gbps, 1.3);
  EXPECT_EQ(bidir->bytes_received, 900u);
  EXPECT_EQ(bidir->bytes_received_back, 400u);
  EXPECT_EQ(bidir->retransmits, 3);
  EXPECT_DOUBLE_EQ(bidir->cpu_host_pct, 95.5);
  auto udp = parse_iperf_json(R"({"end": {"sum": {"packets": 1000, "lost_packets": 10}, "sum_sent": {"bytes": 1200000},
    "sum_received": {"bytes": 1188000, "bits_per_second": 9.5e6, "seconds": 1}}})");
  ASSERT_TRUE(udp.ok());
  EXPECT_EQ(udp->udp_packets, 1000u);
  EXPECT_EQ(udp->udp_lost, 10u);
  EXPECT_EQ(udp->retransmits, -1);
}
