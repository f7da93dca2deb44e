#include <gtest/gtest.h>

#include "lab/base/ipv4.h"
#include "lab/model/plan.h"
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
  EXPECT_EQ(p.namespaces(), (std::vector<std::string>{"vpnlab-b3-ab12-l-lan", "vpnlab-b3-ab12-n-a", "vpnlab-b3-ab12-n-b",
                                                      "vpnlab-b3-ab12-n-c"}));
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

TEST(Plan, OverridesAndCpuCheck) {
  PlanOptions o{"run1", "ab12", {"wireguard-go"}, 3, 2.0, 0};
  auto plan = make_plan(three_on_a_bridge(), o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->products, std::vector<std::string>{"wireguard-go"});
  EXPECT_EQ(plan->samples, 3);
  EXPECT_DOUBLE_EQ(plan->duration_s, 2.0);
  // Interleaved: 3 rounds x (2 s bring-up + 2 s warm-up) + 3 samples x 2 s.
  EXPECT_DOUBLE_EQ(plan->estimated_seconds(), 3 * (2 + 2) + 3 * 2.0);
  Plan sequential = plan.value();
  sequential.interleave = false;
  EXPECT_DOUBLE_EQ(sequential.estimated_seconds(), (2 + 2) + 3 * 2.0);

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
