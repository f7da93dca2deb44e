#include <gtest/gtest.h>

#include "lab/base/ipv4.h"
#include "lab/model/backend_traits.h"
#include "lab/model/plan.h"
#include "lab/model/plan_time.h"
#include "lab/model/test_kinds.h"
#include "lab/model/topology.h"

using namespace vpnlab;

TEST(Ipv4, ParsesAndAssignsHosts) {
  std::string why;
  auto p = parse_ipv4_prefix("10.77.0.0/24", &why);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->host(1)->str(), "10.77.0.1");
  EXPECT_EQ(p->host(254)->str(), "10.77.0.254");
  EXPECT_FALSE(p->host(255));
  EXPECT_FALSE(p->host(0));
  EXPECT_EQ(p->host_count(), 254u);
  auto p31 = parse_ipv4_prefix("192.168.0.0/31", &why);
  EXPECT_EQ(p31->host(1)->str(), "192.168.0.0");
  EXPECT_EQ(p31->host(2)->str(), "192.168.0.1");
  EXPECT_FALSE(parse_ipv4_prefix("10.77.0.0", &why));
  EXPECT_FALSE(parse_ipv4_prefix("10.77.0.256/24", &why));
  EXPECT_FALSE(parse_ipv4_prefix("10.77.0.0/33", &why));
  EXPECT_FALSE(parse_ipv4("1.2.3"));
  EXPECT_FALSE(parse_ipv4("1.2.3.4.5"));
  EXPECT_TRUE(parse_ipv4_prefix("10.0.0.0/8", &why)->overlaps(*parse_ipv4_prefix("10.77.0.0/24", &why)));
  EXPECT_FALSE(parse_ipv4_prefix("10.0.0.0/24", &why)->overlaps(*parse_ipv4_prefix("10.0.1.0/24", &why)));
}

namespace {
Topology three_on_a_bridge() {
  auto t = parse_topology_text(R"([lab]
name = "b3"
[overlay]
subnet = "10.78.0.0/24"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
name = "lan"
nodes = ["c", "a", "b"]
subnet = "192.168.78.0/24"
[[link]]
name = "direct"
nodes = ["a", "b"]
subnet = "192.168.79.0/30"
mtu = 9000
[bench]
[[bench.test]]
name = "t"
client = "a"
server = "c"
)",
                               "b3.toml");
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().format());
  return t.value();
}
}  // namespace

TEST(Plan, AssignsAddressesNamesAndOrder) {
  auto plan = make_plan(three_on_a_bridge(), PlanOptions{"run1", "ab12"});
  ASSERT_TRUE(plan.ok()) << plan.error().format();
  const Plan& p = plan.value();
  EXPECT_EQ(p.ns_prefix, "vpnlab-b3-ab12-");
  // Bridge namespaces come first: veth ends are created into them.
  EXPECT_EQ(p.namespaces(), (std::vector<std::string>{"vpnlab-b3-ab12-l-lan", "vpnlab-b3-ab12-n-a",
                                                      "vpnlab-b3-ab12-n-b", "vpnlab-b3-ab12-n-c"}));
  // Overlay: node i in file order gets host i+1.
  EXPECT_EQ(p.node("a")->overlay.str(), "10.78.0.1/24");
  EXPECT_EQ(p.node("c")->overlay.str(), "10.78.0.3/24");
  // Underlay: node i on the link (link order) gets host i+1.
  EXPECT_EQ(p.underlay_address("c", "lan").str(), "192.168.78.1");
  EXPECT_EQ(p.underlay_address("a", "lan").str(), "192.168.78.2");
  EXPECT_EQ(p.underlay_address("b", "direct").str(), "192.168.79.2");
  ASSERT_EQ(p.bridges.size(), 1u);
  ASSERT_EQ(p.veths.size(), 4u);
  EXPECT_EQ(p.veths[0].ns_b, "vpnlab-b3-ab12-l-lan");
  EXPECT_EQ(p.veths[0].if_b, "p0");
  EXPECT_EQ(p.veths[0].master_b, "br0");
  EXPECT_FALSE(p.veths[0].addr_b);
  EXPECT_EQ(p.veths[3].mtu, 9000);
  EXPECT_EQ(p.veths[3].master_b, "");
  EXPECT_EQ(p.tests[0].underlay_link(), "lan");
  EXPECT_EQ(p.products, std::vector<std::string>{"baseline"});
  EXPECT_EQ(p.samples, 10);
}

// A product's control service: a namespace of its own, a veth pair to each VPN node in a
// private /24 nothing else uses, a route to that /24 through each node's own pair (one
// address for the service), and none of it a carrier of the tunnel.
TEST(Plan, AServiceGetsANamespaceAndAControlLinkToEachNode) {
  auto plan = make_plan(three_on_a_bridge(), PlanOptions{"run1", "ab12"});
  ASSERT_TRUE(plan.ok()) << plan.error().format();
  auto with = plan_with_services(*plan, {"headscale"});
  ASSERT_TRUE(with.ok()) << with.error().format();
  const PlanNode* svc = with->node("svc-headscale");
  ASSERT_NE(svc, nullptr);
  EXPECT_EQ(svc->ns, "vpnlab-b3-ab12-s-headscale");
  EXPECT_TRUE(svc->service);
  EXPECT_FALSE(svc->vpn);
  EXPECT_EQ(with->vpn_nodes().size(), 3u) << "the service runs no VPN";
  ASSERT_EQ(with->veths.size(), plan->veths.size() + 3);
  const PlanVeth& to_a = with->veths[plan->veths.size()];
  EXPECT_EQ(to_a.ns_a, "vpnlab-b3-ab12-n-a");
  EXPECT_EQ(to_a.if_a, "ctl-headscale");
  EXPECT_EQ(to_a.addr_a->str(), "172.31.77.2/30");
  EXPECT_EQ(to_a.addr_b->str(), "172.31.77.1/30");
  EXPECT_EQ(with->veths.back().addr_a->str(), "172.31.77.10/30");
  for (const char* n : {"a", "b", "c"}) {
    EXPECT_EQ(service_address(*with, "headscale", n), "172.31.77.1") << n;
    EXPECT_FALSE(with->node(n)->underlay.back().carrier) << n;
  }
  ASSERT_EQ(with->routes.size(), plan->routes.size() + 3);
  EXPECT_EQ(with->routes.back().dest.str(), "172.31.77.0/24");
  EXPECT_EQ(with->routes.back().via.str(), "172.31.77.9");
  // A topology that uses 172.31.77.0/24 itself pushes the control network to the next /24.
  Plan taken = *plan;
  taken.overlay_subnet = Ipv4Prefix{*parse_ipv4("172.31.77.0"), 24};
  auto moved = plan_with_services(taken, {"headscale"});
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(service_address(moved.value(), "headscale", "a"), "172.31.78.1");
}

TEST(Plan, OverridesAndCpuCheck) {
  PlanOptions o{"run1", "ab12", {"wireguard-go"}, 3, 2.0, 0};
  auto plan = make_plan(three_on_a_bridge(), o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->products, std::vector<std::string>{"wireguard-go"});
  EXPECT_EQ(plan->samples, 3);
  EXPECT_DOUBLE_EQ(plan->duration_s, 2.0);
  // Interleaved: 3 rounds, each a lab (3 nodes and a bridge), a 1 s warm-up (vpnlab's
  // default) and a 2 s sample, each warm-up and sample with the harness's cost around it
  // (a warm-up's without the idle round trip only a measured bulk sample takes).
  const BackendTraits& netns = backend_traits("netns");
  const double lab = netns.lab_s + 4 * netns.lab_node_s;
  const double around = test_kind("throughput").sample_overhead_s;
  const double warm_around = around - test_kind("throughput").measured_only_s;
  EXPECT_LT(warm_around, around);
  const RunTimeEstimate e = estimate_run_time(*plan);
  EXPECT_DOUBLE_EQ(e.labs_s, 3 * lab);
  EXPECT_DOUBLE_EQ(e.warmup_s, 3 * (1 + warm_around));
  EXPECT_DOUBLE_EQ(e.measuring_s, 3 * 2.0);
  EXPECT_DOUBLE_EQ(e.overhead_s, 3 * around);
  EXPECT_DOUBLE_EQ(e.once_s, netns.run_s);
  EXPECT_DOUBLE_EQ(plan->estimated_seconds(), e.total());
  // Sequential: one lab and one warm-up per product; the samples are the same.
  Plan sequential = plan.value();
  sequential.interleave = false;
  EXPECT_DOUBLE_EQ(estimate_run_time(sequential).labs_s, lab);
  EXPECT_DOUBLE_EQ(estimate_run_time(sequential).warmup_s, 1 + warm_around);
  EXPECT_DOUBLE_EQ(estimate_run_time(sequential).measuring_s, 3 * 2.0);
  // A product's "not run" tests (a relay chain it has no relay for) cost no time; its
  // labs still do.
  Plan two = plan.value();
  two.products = {"baseline", "wireguard-go"};
  two.tests.push_back(two.tests.front());
  two.tests_not_run["wireguard-go"] = 1;
  EXPECT_DOUBLE_EQ(estimate_run_time(two).labs_s, 2 * 3 * lab);
  EXPECT_DOUBLE_EQ(estimate_run_time(two).measuring_s, 3 * 2.0 * 2 + 3 * 2.0);
  // A product whose every test is "not run" is never brought up.
  two.tests_not_run["wireguard-go"] = 2;
  EXPECT_DOUBLE_EQ(estimate_run_time(two).labs_s, 3 * lab);
  // A product's own bring-up (its spec's bringup_s) is per overlay: a chain's every hop.
  Plan chained = plan.value();
  chained.bringup_s["wireguard-go"] = 2;
  EXPECT_DOUBLE_EQ(estimate_run_time(chained).labs_s, 3 * (lab + 2));
  chained.hops.resize(3);
  EXPECT_DOUBLE_EQ(estimate_run_time(chained).labs_s, 3 * (lab + 3 * 2));
  // An impaired link's achieved path is measured once per run: 500 echoes 4 ms apart and
  // half a second for late answers (three asked round trips of 2 x 10 ms are less).
  Plan impaired = plan.value();
  for (auto& v : impaired.veths)
    if (v.link == "lan") v.delay_ms = 10;
  EXPECT_DOUBLE_EQ(impaired.estimated_seconds(), plan->estimated_seconds() + 2.5);
  // A zero-loss search is up to 6 trials of duration / 6 (at least 1 s) each with its own
  // harness cost, and usually stops before the last; a test without a throughput warm-up
  // first checks plaintext on its own, a bulk transfer that is its first round's warm-up.
  Plan search = plan.value();
  search.tests.front().spec.zero_loss = true;
  search.tests.front().spec.udp = true;
  EXPECT_DOUBLE_EQ(estimate_run_time(search).measuring_s, 3 * 0.8 * 6 * 1.0);
  EXPECT_DOUBLE_EQ(estimate_run_time(search).overhead_s, 3 * 0.8 * 6 * around);
  Plan rr = plan.value();
  rr.tests.front().spec.kind = "rr";
  const double rr_around = test_kind("rr").sample_overhead_s;
  EXPECT_DOUBLE_EQ(estimate_run_time(rr).warmup_s, 2 * (1 + rr_around) + 1 + warm_around);
  rr.warmup_s = 0;
  EXPECT_DOUBLE_EQ(estimate_run_time(rr).warmup_s, 1 + warm_around) << "no warm-ups: the check's 1 s alone";
  EXPECT_DOUBLE_EQ(estimate_run_time(rr).overhead_s, 3 * rr_around);

  Topology t = three_on_a_bridge();
  t.nodes[1].cpus = {7};
  auto bad = make_plan(t, PlanOptions{"run1", "ab12", {}, {}, {}, 2});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "node 'b': CPU 7 does not exist");
  EXPECT_EQ(bad.error().hint, "this machine has CPUs 0..1");
}

TEST(Plan, RefusesTestWithoutSharedLink) {
  auto t = parse_topology_text(R"([lab]
name = "x"
[overlay]
subnet = "10.78.0.0/24"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
name = "l1"
nodes = ["a", "b"]
subnet = "192.168.1.0/24"
[[link]]
name = "l2"
nodes = ["b", "c"]
subnet = "192.168.2.0/24"
[bench]
[[bench.test]]
name = "t"
client = "a"
server = "c"
)",
                               "x.toml");
  ASSERT_TRUE(t.ok());
  auto plan = make_plan(t.value(), PlanOptions{"r", "t"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().where_and_what(), "x.toml:20:1: test 't': VPN nodes 'a' and 'c' share no link");
}
