// Multi-hop chains: [[chain]] parsing and its errors, the routing plan of 2- and 3-hop
// chains (per-hop subnets, ports, routes, the sites each hop's ends serve), the refusal of
// products that do not relay, the hop-cost table.
#include <gtest/gtest.h>

#include "lab/model/finalize.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/model/topology.h"
#include "lab/results/hop_cost.h"
#include "lab/run/sample.h"

using namespace vpnlab;

namespace {

// client c -- r1 ==== r2 ==== ... ==== rN -- server s; `chain` overrides the [[chain]] table.
std::string chain_text(int relays, const std::string& chain = "", const std::string& extra = "") {
  std::string t = "[lab]\nname = \"x\"\n[overlay]\nsubnet = \"10.77.0.0/24\"\nmtu = 1400\nport = 51820\n";
  t += "[[node]]\nname = \"c\"\ngateway = \"r1\"\n";
  for (int i = 1; i <= relays; ++i) t += "[[node]]\nname = \"r" + std::to_string(i) + "\"\n";
  t += "[[node]]\nname = \"s\"\ngateway = \"r" + std::to_string(relays) + "\"\n";
  t += "[[link]]\nname = \"lc\"\nnodes = [\"c\", \"r1\"]\nsubnet = \"192.168.1.0/24\"\n";
  for (int i = 1; i < relays; ++i)
    t += "[[link]]\nname = \"l" + std::to_string(i) + "\"\nnodes = [\"r" + std::to_string(i) + "\", \"r" +
         std::to_string(i + 1) + "\"]\nsubnet = \"192.168.10" + std::to_string(i) + ".0/24\"\n";
  t += "[[link]]\nname = \"ls\"\nnodes = [\"r" + std::to_string(relays) + "\", \"s\"]\nsubnet = \"192.168.2.0/24\"\n";
  if (chain.empty()) {
    t += "[[chain]]\nname = \"p\"\nnodes = [";
    for (int i = 1; i <= relays; ++i) t += std::string(i > 1 ? ", " : "") + "\"r" + std::to_string(i) + "\"";
    t += "]\n";
  } else {
    t += chain;
  }
  t += extra;
  t += "[bench]\nproducts = [\"baseline\"]\n[[bench.test]]\nname = \"t\"\nclient = \"c\"\nserver = \"s\"\n";
  return t;
}

Plan plan_text(const std::string& text) {
  auto topo = parse_topology_text(text, "topologies/x.toml");
  EXPECT_TRUE(topo.ok()) << (topo.ok() ? "" : topo.error().format());
  auto plan = make_plan(topo.value(), PlanOptions{"r", "t"});
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().format());
  return plan.value();
}

std::string error_of(const std::string& text) {
  auto topo = parse_topology_text(text, "topologies/x.toml");
  if (!topo.ok()) return topo.error().format();
  auto plan = make_plan(topo.value(), PlanOptions{"r", "t"});
  return plan.ok() ? "" : plan.error().format();
}

std::vector<std::string> routes_of(const Plan& p, const std::string& node, PlanRoute::When when) {
  std::vector<std::string> out;
  for (const auto& r : p.routes)
    if (r.node == node && r.when == when) out.push_back(r.dest.str() + " via " + r.via.str());
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST(Chain, ATwoHopChainHasATunnelPerHopAndRoutesHopByHop) {
  Plan p = plan_text(chain_text(3));
  ASSERT_EQ(p.hops.size(), 2u);
  const PlanHop& h1 = p.hops[0];
  const PlanHop& h2 = p.hops[1];
  EXPECT_EQ(h1.a + "-" + h1.b + " " + h1.link + " " + h1.subnet.str() + " " + h1.addr_a.str() + " " + h1.addr_b.str() +
                " " + std::to_string(h1.port),
            "r1-r2 l1 10.77.0.0/29 10.77.0.1/29 10.77.0.2/29 51820");
  EXPECT_EQ(h2.a + "-" + h2.b + " " + h2.link + " " + h2.subnet.str() + " " + h2.addr_a.str() + " " + h2.addr_b.str() +
                " " + std::to_string(h2.port),
            "r2-r3 l2 10.77.0.8/29 10.77.0.9/29 10.77.0.10/29 51821");
  // Allowed subnets per hop: each end serves the sites on its side of the chain.
  EXPECT_EQ(h1.sites_a.size(), 1u);
  EXPECT_EQ(h1.sites_a[0].str(), "192.168.1.0/24");
  EXPECT_EQ(h1.sites_b[0].str(), "192.168.2.0/24");
  EXPECT_EQ(h2.sites_a[0].str(), "192.168.1.0/24");
  EXPECT_EQ(h2.sites_b[0].str(), "192.168.2.0/24");
  // Through the tunnel, every node sends to the neighbour toward the site, on the hop they share.
  EXPECT_EQ(routes_of(p, "r1", PlanRoute::When::tunnel), V({"192.168.2.0/24 via 10.77.0.2"}));
  EXPECT_EQ(routes_of(p, "r2", PlanRoute::When::tunnel),
            V({"192.168.1.0/24 via 10.77.0.1", "192.168.2.0/24 via 10.77.0.10"}));
  EXPECT_EQ(routes_of(p, "r3", PlanRoute::When::tunnel), V({"192.168.1.0/24 via 10.77.0.9"}));
  // The baseline routes the same way over the underlay.
  EXPECT_EQ(routes_of(p, "r1", PlanRoute::When::baseline), V({"192.168.2.0/24 via 192.168.101.2"}));
  EXPECT_EQ(routes_of(p, "r2", PlanRoute::When::baseline),
            V({"192.168.1.0/24 via 192.168.101.1", "192.168.2.0/24 via 192.168.102.2"}));
  for (const char* n : {"r1", "r2", "r3"}) EXPECT_TRUE(p.node(n)->forwards) << n;
  EXPECT_FALSE(p.node("c")->forwards);
  ASSERT_EQ(p.tests.size(), 1u);
  EXPECT_EQ(p.tests[0].underlay_link(), "l1");
}

TEST(Chain, AHopPlanHasTheHopsTwoEndsWithTheirSitesAndOnlyItsLinkAsCarrier) {
  Plan p = plan_text(chain_text(4));
  ASSERT_EQ(p.hops.size(), 3u);
  Plan h2 = p.hop_plan(1);  // r2 - r3
  ASSERT_EQ(h2.nodes.size(), 2u);
  EXPECT_EQ(h2.nodes[0].name, "r2");
  EXPECT_EQ(h2.nodes[1].name, "r3");
  EXPECT_EQ(h2.nodes[0].overlay.str(), "10.77.0.9/29");
  EXPECT_EQ(h2.overlay_subnet.str(), "10.77.0.8/29");
  EXPECT_EQ(h2.overlay_port, 51821);
  EXPECT_EQ(h2.nodes[0].sites[0].str(), "192.168.1.0/24");
  EXPECT_EQ(h2.nodes[1].sites[0].str(), "192.168.2.0/24");
  for (const auto& n : h2.nodes)
    for (const auto& u : n.underlay) EXPECT_EQ(u.carrier, u.link == "l2") << n.name << " " << u.link;
  EXPECT_TRUE(h2.routes.empty());
  // The hops between the ends, from either side.
  auto forward = p.hops_between("r1", "r4");
  ASSERT_EQ(forward.size(), 3u);
  EXPECT_EQ(forward[0]->a, "r1");
  auto back = p.hops_between("r4", "r1");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0]->b, "r4");
  EXPECT_EQ(p.hops_between("r2", "r3").size(), 1u);
  EXPECT_TRUE(p.hops_between("r1", "c").empty());
  // The three-hop chain's middle relay routes both ways through its own two hops.
  EXPECT_EQ(routes_of(p, "r3", PlanRoute::When::tunnel),
            V({"192.168.1.0/24 via 10.77.0.9", "192.168.2.0/24 via 10.77.0.18"}));
}

TEST(Chain, EachHopsInterfaceCountsOnFromTheProducts) {
  EXPECT_EQ(hop_interface("wg0", 1), "wg0");
  EXPECT_EQ(hop_interface("wg0", 2), "wg1");
  EXPECT_EQ(hop_interface("nebula1", 3), "nebula3");
  EXPECT_EQ(hop_interface("tun", 2), "tun2");
}

TEST(Chain, MistakesAreLocatedWithAHint) {
  EXPECT_EQ(error_of(chain_text(3, "[[chain]]\nnodes = [\"r1\", \"r3\"]\n")),
            "vpnlab: error: topologies/x.toml:36:9: chain 'chain-1': hop 'r1' -> 'r3': no link connects them\n"
            "hint: add a [[link]] with nodes = [\"r1\", \"r3\"]: the underlay that hop's tunnel crosses");
  EXPECT_EQ(
      error_of(chain_text(3, "[[chain]]\nnodes = [\"r1\", \"r2\", \"rr3\"]\n")),
      "vpnlab: error: topologies/x.toml:36:9: chain 'chain-1': node 'rr3' is not defined\nhint: did you mean 'r3'?");
  EXPECT_EQ(error_of(chain_text(3, "[[chain]]\nnodes = [\"r1\"]\n")),
            "vpnlab: error: topologies/x.toml:36:9: chain 'chain-1': a chain needs at least two nodes (one hop)\n"
            "hint: list the VPN nodes along the path, e.g. [\"r1\", \"r2\", \"r3\"]");
  EXPECT_EQ(error_of(chain_text(3, "[[chain]]\nnodes = [\"r1\", \"r2\"]\n[[chain]]\nnodes = [\"r2\", \"r3\"]\n")),
            "vpnlab: error: topologies/x.toml:38:9: chain 'chain-2': node 'r2' is on a chain already\nhint: a node "
            "relays on one chain, once");
  EXPECT_NE(error_of(chain_text(3, "[[chain]]\nnodez = [\"r1\", \"r2\"]\n")).find("did you mean 'nodes'"),
            std::string::npos);
  // A test must run between the site clients behind the chain's two ends.
  std::string text = chain_text(3);
  text.replace(text.find("client = \"c\""), 12, "client = \"r1\"");
  EXPECT_EQ(error_of(text),
            "vpnlab: error: topologies/x.toml:40:1: test 't': 'r1' is on a chain itself; a chain's tests run between "
            "the site "
            "clients behind its ends\nhint: add a node with gateway = \"r1\" and a link to it, and test from or to "
            "that node (only the "
            "two ends of a one-hop or native relay chain may be tested between themselves)");
  // Chains run on namespaces only.
  auto vm = parse_topology_text(chain_text(3), "topologies/x.toml");
  ASSERT_TRUE(vm.ok());
  PlanOptions in_guests{"r", "t"};
  in_guests.backend = "vm";
  auto refused = make_plan(vm.value(), in_guests);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().format(),
            "vpnlab: error: topologies/x.toml:35:1: [[chain]] runs on the netns backend only, not 'vm'\n"
            "hint: run it with --backend netns (relays with an instance per hop were not tried in guests or on hosts)");
  // [overlay] nodes and chains both naming the VPN nodes is refused.
  text = chain_text(3);
  text.replace(text.find("port = 51820\n"), 13, "port = 51820\nnodes = [\"r1\", \"r3\"]\n");
  EXPECT_EQ(error_of(text),
            "vpnlab: error: topologies/x.toml:7:9: overlay: nodes and [[chain]] both say which nodes run the VPN\n"
            "hint: leave out [overlay] nodes: every chain's nodes run it");
}

TEST(Chain, OnlyProductsThatDeclareChainsAreRunOnOne) {
  Plan p = plan_text(chain_text(3));
  auto wg = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go");
  auto nebula = load_product(VPNLAB_PRODUCTS_DIR, "nebula");
  auto openvpn = load_product(VPNLAB_PRODUCTS_DIR, "openvpn");
  auto tinc = load_product(VPNLAB_PRODUCTS_DIR, "tinc");
  auto baseline = load_product(VPNLAB_PRODUCTS_DIR, "baseline");
  ASSERT_TRUE(wg.ok() && nebula.ok() && openvpn.ok() && tinc.ok() && baseline.ok());
  EXPECT_TRUE(check_product_fits(wg.value(), p).ok());
  EXPECT_TRUE(check_product_fits(nebula.value(), p).ok());
  EXPECT_TRUE(check_product_fits(baseline.value(), p).ok());
  auto refused = check_product_fits(openvpn.value(), p);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().format(),
            "vpnlab: error: product 'openvpn' is not declared to relay along a chain of hops (topology = [\"chain\"] "
            "in its product.toml)\n"
            "hint: leave it out of this run: a relay must forward what one hop's tunnel delivers into the next, with "
            "other sites' subnets allowed");
  EXPECT_FALSE(check_product_fits(tinc.value(), p).ok());
}

TEST(Chain, TheShippedMultihopFileHasOneTwoAndThreeHopTests) {
  auto topo = load_topology(std::string(VPNLAB_TOPOLOGIES) + "/multihop.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  auto plan = make_plan(topo.value(), PlanOptions{"r", "t"});
  ASSERT_TRUE(plan.ok()) << plan.error().format();
  std::vector<size_t> hops;
  for (const auto& t : plan->tests)
    hops.push_back(
        plan->hops_between(plan->node(t.spec.client)->gateway, plan->node(t.spec.servers[0])->gateway).size());
  EXPECT_EQ(hops, std::vector<size_t>({1, 2, 3}));
}

TEST(Chain, TheHopCostTableGivesEachHopCountOverOneHopRoundByRound) {
  std::vector<SampleRow> rows;
  for (int round = 1; round <= 6; ++round)
    for (int hops = 1; hops <= 3; ++hops) {
      SampleRow r;
      r.product = "wireguard-go";
      r.test = "hop" + std::to_string(hops);
      r.hops = hops;
      r.sample = round;
      r.status = "ok";
      r.valid = true;
      r.gbps = (0.3 + 0.01 * round) / hops;  // each hop count costs exactly its share, whatever the round
      r.cpu_s_per_gbit = 5.0 * hops;
      r.latency_p99_ms = 10.0 + hops;
      rows.push_back(r);
    }
  rows.back().valid = false;  // an invalid row (hop3, round 6) drops out of its pair
  auto costs = summarize_hop_costs(rows);
  ASSERT_EQ(costs.size(), 3u);
  EXPECT_EQ(costs[0].reference, "hop1");
  EXPECT_EQ(costs[2].hops, 3);
  EXPECT_NEAR(costs[1].gbps_ratio.ratio, 0.5, 1e-9);
  EXPECT_NEAR(costs[1].gbps_ratio.ci_low, 0.5, 1e-6);
  EXPECT_NEAR(costs[2].gbps_ratio.ratio, 1.0 / 3, 1e-9);
  EXPECT_EQ(costs[2].gbps_ratio.n, 5u);
  EXPECT_NEAR(costs[2].cpu_ratio.ratio, 3, 1e-9);
  EXPECT_EQ(costs[2].gbps.n, 5u);
  std::string table = hop_cost_table(rows);
  EXPECT_NE(table.find("wireguard-go         hop2              2    0.167"), std::string::npos) << table;
  EXPECT_NE(table.find("0.50 (0.50-0.50)"), std::string::npos) << table;
  EXPECT_NE(table.find("5/6"), std::string::npos) << table;
  // No chain, no table.
  for (auto& r : rows) r.hops = 0;
  EXPECT_EQ(hop_cost_table(rows), "");
}

// A native relay's own daemons (results.csv relay_cpu_s, relay_rss_kb): CPU per Gbit moved
// and peak RSS under the hop-cost table, for the rows that crossed one; none otherwise.
TEST(Chain, TheRelaysOwnCostIsItsDaemonsCpuPerGbitAndTheirMemory) {
  std::vector<SampleRow> rows;
  for (int round = 1; round <= 6; ++round)
    for (const char* test : {"direct", "relayed"}) {
      SampleRow r;
      r.product = "nebula";
      r.test = test;
      r.hops = std::string(test) == "direct" ? 1 : 2;
      r.sample = round;
      r.status = "ok";
      r.valid = true;
      r.gbps = 0.4;
      r.duration_s = 5;
      if (r.hops == 2) {
        r.relay_cpu_s = 2.0 + 0.01 * round;  // over 2 Gbit moved: about 1 CPU-s/Gbit
        r.relay_rss_kb = 13 * 1024;
      }
      rows.push_back(r);
    }
  auto costs = summarize_hop_costs(rows);
  ASSERT_EQ(costs.size(), 2u);
  EXPECT_EQ(costs[0].relay_rss_mb.n, 0u) << "the direct test crossed no relay";
  EXPECT_NEAR(costs[1].relay_cpu_per_gbit.median, 1.0175, 1e-9);
  EXPECT_NEAR(costs[1].relay_rss_mb.median, 13, 1e-9);
  const std::string table = hop_cost_table(rows);
  EXPECT_NE(table.find("the relay's own cost"), std::string::npos) << table;
  EXPECT_NE(table.find("nebula               relayed                 1.018±1%       13.0±0%\n"), std::string::npos)
      << table;
  EXPECT_EQ(table.find("nebula               direct                "), std::string::npos) << table;
  EXPECT_EQ(hop_cost_json(rows)[0]["relay_rss_mb_median"], nullptr);
  EXPECT_DOUBLE_EQ(hop_cost_json(rows)[1]["relay_rss_mb_median"].get<double>(), 13);
  // No relay crossed anywhere: no lines.
  for (auto& r : rows) r.relay_rss_kb = 0;
  EXPECT_EQ(hop_cost_table(rows).find("the relay's own cost"), std::string::npos);
}

TEST(Chain, ANativeRelayChainIsOneOverlayThroughItsRelay) {
  std::string text = chain_text(3, "[[chain]]\nnodes = [\"r1\", \"r2\", \"r3\"]\nrelay = \"native\"\n");
  Plan p = plan_text(text);
  ASSERT_EQ(p.hops.size(), 1u);
  const PlanHop& h = p.hops[0];
  EXPECT_EQ(h.a + "-" + h.b + " via " + h.relays.at(0) + " " + h.addr_a.str() + " " + h.addr_b.str() + " " + h.link,
            "r1-r3 via r2 10.77.0.1/29 10.77.0.3/29 l1");
  // The ends send the other site to the other end's overlay address; the relay routes
  // nothing in clear through the tunnel, only for the baseline.
  EXPECT_EQ(routes_of(p, "r1", PlanRoute::When::tunnel), V({"192.168.2.0/24 via 10.77.0.3"}));
  EXPECT_EQ(routes_of(p, "r3", PlanRoute::When::tunnel), V({"192.168.1.0/24 via 10.77.0.1"}));
  EXPECT_TRUE(routes_of(p, "r2", PlanRoute::When::tunnel).empty());
  EXPECT_EQ(routes_of(p, "r2", PlanRoute::When::baseline),
            V({"192.168.1.0/24 via 192.168.101.1", "192.168.2.0/24 via 192.168.102.2"}));
  EXPECT_EQ(p.hops_crossed("r1", "r3"), 2);
  EXPECT_EQ(p.hops_between("r3", "r1").size(), 1u);
  // Its one session: the relay first (the node every other reaches), both its links carriers.
  Plan hp = p.hop_plan(0);
  ASSERT_EQ(hp.nodes.size(), 3u);
  EXPECT_EQ(hp.nodes[0].name, "r2");
  EXPECT_TRUE(hp.nodes[0].relay);
  EXPECT_EQ(hp.nodes[0].overlay.str(), "10.77.0.2/29");
  EXPECT_FALSE(hp.nodes[1].relay);
  for (const auto& u : hp.nodes[0].underlay) EXPECT_TRUE(u.carrier) << u.link;
  // Nebula has relays of its own; wireguard-go does not and is refused.
  auto nebula = load_product(VPNLAB_PRODUCTS_DIR, "nebula");
  auto wg = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go");
  ASSERT_TRUE(nebula.ok() && wg.ok());
  EXPECT_TRUE(check_product_fits(nebula.value(), p).ok());
  auto refused = check_product_fits(wg.value(), p);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "product 'wireguard-go' has no relay of its own (topology = [\"relay\"] in its product.toml) for a chain "
            "with relay = \"native\"");
  // A native chain is exactly two ends and one relay.
  EXPECT_EQ(error_of(chain_text(4, "[[chain]]\nnodes = [\"r1\", \"r2\", \"r3\", \"r4\"]\nrelay = \"native\"\n")),
            "vpnlab: error: topologies/x.toml:42:9: chain 'chain-1': a native relay chain is two ends and the relay "
            "between them, not 4 nodes\n"
            "hint: list three nodes, e.g. [\"a\", \"relay\", \"b\"]: products relay over one node (Nebula's relays do "
            "not chain)");
  EXPECT_NE(error_of(chain_text(3, "[[chain]]\nnodes = [\"r1\", \"r2\", \"r3\"]\nrelay = \"yes\"\n"))
                .find("relay = \"yes\" is not understood"),
            std::string::npos);
}

// topologies/field-paths.toml: a one-hop chain and a native relay chain, each tested
// between its own two ends. The products reach the far end only through their relay; the
// baseline goes through it in clear.
TEST(Chain, TheEndsOfAOneHopOrNativeRelayChainAreTestedBetweenThemselves) {
  auto topo = load_topology(std::string(VPNLAB_TOPOLOGIES) + "/field-paths.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  auto made = make_plan(topo.value(), PlanOptions{"r", "t"});
  ASSERT_TRUE(made.ok()) << made.error().format();
  const Plan& p = made.value();
  ASSERT_EQ(p.tests.size(), 2u);
  EXPECT_EQ(p.tests[0].underlay_links, V({"a1b1"}));
  EXPECT_EQ(p.tests[1].underlay_links, V({"a2r2"}));
  EXPECT_EQ(p.target_address(p.tests[0], 0, true).str() + " " + p.target_address(p.tests[0], 0, false).str(),
            "10.77.0.2 192.168.12.2");
  EXPECT_EQ(p.target_address(p.tests[1], 0, true).str() + " " + p.target_address(p.tests[1], 0, false).str(),
            "10.77.0.11 192.168.23.2");
  EXPECT_TRUE(routes_of(p, "a2", PlanRoute::When::tunnel).empty());
  EXPECT_EQ(routes_of(p, "a2", PlanRoute::When::baseline), V({"192.168.23.0/24 via 192.168.22.2"}));
  EXPECT_EQ(routes_of(p, "b2", PlanRoute::When::baseline), V({"192.168.22.0/24 via 192.168.23.1"}));
  EXPECT_TRUE(routes_of(p, "a2", PlanRoute::When::always).empty());
  EXPECT_EQ(p.hops_crossed("a1", "b1"), 1);
  EXPECT_EQ(p.hops_crossed("a2", "b2"), 2);
  // A one-hop chain is a p2p overlay: any product that carries p2p runs it. The relayed
  // chain needs a relay of the product's own.
  for (const char* name : {"baseline", "nebula", "easytier", "easytier-plain"}) {
    auto spec = load_product(VPNLAB_PRODUCTS_DIR, name);
    ASSERT_TRUE(spec.ok());
    EXPECT_TRUE(check_product_fits(spec.value(), p).ok())
        << name << ": " << check_product_fits(spec.value(), p).error().format();
  }
  // wireguard-go has no relay: it fits the file, and only the relayed test is out of reach.
  auto wg = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go");
  ASSERT_TRUE(wg.ok());
  EXPECT_TRUE(check_product_fits(wg.value(), p).ok());
  EXPECT_EQ(tests_out_of_reach(wg.value(), p),
            (std::map<std::string, std::string>{{"relayed",
                                                 "product 'wireguard-go' declares no relay that vpnlab can put on "
                                                 "chain 'relayed' (topology = [\"relay\"] in its product.toml)"}}));
  auto nebula = load_product(VPNLAB_PRODUCTS_DIR, "nebula");
  ASSERT_TRUE(nebula.ok());
  EXPECT_TRUE(tests_out_of_reach(nebula.value(), p).empty());
  // A hop chain's ends are not a test's ends unless it is one hop.
  std::string text = chain_text(3);
  text.replace(text.find("client = \"c\""), 12, "client = \"r1\"");
  text.replace(text.find("server = \"s\""), 12, "server = \"r3\"");
  EXPECT_NE(error_of(text).find("'r1' is on a chain itself"), std::string::npos);
}

// Each hop of a chained plan is a tailnet of its own: its own control service, numbering
// from the hop's subnet, and on the relay chain a DERP map that names the relay at its
// address on each end's link. Tailscale's relay is that DERP server.
TEST(Chain, EachHopGetsItsOwnControlServiceAndTheRelayChainsNamesItsRelay) {
  auto topo = load_topology(std::string(VPNLAB_TOPOLOGIES) + "/field-paths.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  auto p = make_plan(topo.value(), PlanOptions{"r", "t"});
  ASSERT_TRUE(p.ok()) << p.error().format();
  auto with = plan_with_services(*p, {"headscale"});
  ASSERT_TRUE(with.ok()) << with.error().format();
  const PlanNode* direct = with->node("svc-headscale-direct-1");
  const PlanNode* relayed = with->node("svc-headscale-relayed-1");
  ASSERT_TRUE(direct && relayed);
  EXPECT_EQ(with->node("svc-headscale"), nullptr);
  EXPECT_EQ(relayed->ns, "vpnlab-field-t-s-headscale-relayed-1");
  EXPECT_EQ(direct->underlay.size(), 2u);
  EXPECT_EQ(relayed->underlay.size(), 3u) << "a2, r2 and b2";
  EXPECT_EQ(service_address(*with, "headscale", "a1"), service_address(*with, "headscale", "b1"));
  EXPECT_EQ(service_address(*with, "headscale", "a2"), service_address(*with, "headscale", "b2"));
  EXPECT_NE(service_address(*with, "headscale", "a1"), service_address(*with, "headscale", "a2"));
  EXPECT_TRUE(direct->served_relays.empty());
  std::vector<std::string> relay_at;
  for (const auto& [name, addr] : relayed->served_relays) relay_at.push_back(name + " " + addr.str());
  EXPECT_EQ(relay_at, V({"r2 192.168.22.2", "r2 192.168.23.1"}));
  auto tailscale = load_product(VPNLAB_PRODUCTS_DIR, "tailscale");
  ASSERT_TRUE(tailscale.ok()) << tailscale.error().format();
  EXPECT_TRUE(tests_out_of_reach(tailscale.value(), *p).empty());
  EXPECT_EQ(tailscale->path->relayed, "via DERP(lab)");
  // A node in two hops (a hop chain's relay) would need two control links of one name.
  auto hops = plan_with_services(plan_text(chain_text(3)), {"headscale"});
  ASSERT_FALSE(hops.ok());
  EXPECT_EQ(hops.error().message,
            "node 'r2' is in p hop 1 and p hop 2: a product's control service serves each node in one hop only");
}

// [path] may say what the ends of a relay chain print: EasyTier's route through the relay.
TEST(Chain, EasyTiersPathProofNamesTheRelayOnARelayChain) {
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "easytier");
  ASSERT_TRUE(spec.ok());
  ASSERT_TRUE(spec->path.has_value());
  EXPECT_EQ(spec->path->relayed,
            "│ {{peer_overlay_address}} │ {{peer_name}} │ │ {{relay_overlay_address}} │ {{relay_name}} │");
}

TEST(Chain, ARelayMustPassOnEveryByteBothWays) {
  TunnelCounters d;
  d.underlay_rx = d.underlay_tx = 3000;
  EXPECT_EQ(relay_check(2000, 1000, d), "");
  d.underlay_tx = 2999;
  EXPECT_EQ(relay_check(2000, 1000, d),
            "its links toward the ends took in 3000 and passed on 2999 bytes, less than the 3000 iperf3 moved both "
            "ways: the traffic did not go through the relay");
  // In a sample's score a relay's key is checked so, the ends' as tunnels.
  SampleScore score;
  score.duration_s = 1;
  score.expect["r2 (relay)"] = {2000, 1000};
  score.delta["r2 (relay)"] = d;
  score.relays.insert("r2 (relay)");
  EXPECT_EQ(
      score_sample(score),
      "VPN node 'r2 (relay)': its links toward the ends took in 3000 and passed on 2999 bytes, less than the 3000 "
      "iperf3 moved both ways: the traffic did not go through the relay");
}
