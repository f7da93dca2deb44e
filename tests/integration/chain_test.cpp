// Multi-hop chains on real namespaces: c -- r1 ==== r2 ==== r3 -- s, each hop its own
// tunnel (r2 runs two instances of the product). A sample is valid only with the test's
// bytes on both ends of both hops; a chain routed around one hop is invalid.
#include <filesystem>
#include <fstream>

#include "lab/app/run_request.h"
#include "lab/run/keys.h"
#include "lab/run/product_tunnels.h"
#include "lab/run/sample.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

// c -- r1 ==== r2 ... ==== rN -- s: the sending end on CPU 0, the rest on CPU 1.
std::string chain_topology(int relays) {
  std::string t = "[lab]\nname = \"chain\"\n[overlay]\nsubnet = \"10.77.0.0/24\"\nmtu = 1400\n";
  t += "[[node]]\nname = \"c\"\ngateway = \"r1\"\ncpus = [0]\n";
  for (int i = 1; i <= relays; ++i)
    t += "[[node]]\nname = \"r" + std::to_string(i) + "\"\ncpus = [" + (i == 1 ? "0" : "1") + "]\n";
  t += "[[node]]\nname = \"s\"\ngateway = \"r" + std::to_string(relays) + "\"\ncpus = [1]\n[[chain]]\nnodes = [";
  for (int i = 1; i <= relays; ++i) t += std::string(i > 1 ? ", " : "") + "\"r" + std::to_string(i) + "\"";
  t += "]\n[[link]]\nname = \"lc\"\nnodes = [\"c\", \"r1\"]\nsubnet = \"192.168.1.0/24\"\n";
  for (int i = 1; i < relays; ++i)
    t += "[[link]]\nname = \"h" + std::to_string(i) + "\"\nnodes = [\"r" + std::to_string(i) + "\", \"r" +
         std::to_string(i + 1) + "\"]\nsubnet = \"192.168.10" + std::to_string(i) + ".0/24\"\n";
  t += "[[link]]\nname = \"ls\"\nnodes = [\"r" + std::to_string(relays) + "\", \"s\"]\nsubnet = \"192.168.2.0/24\"\n";
  return t + "[bench]\nproducts = [\"wireguard-go\"]\n[[bench.test]]\nname = \"t\"\nclient = \"c\"\nserver = \"s\"\n";
}

// Brings `product` up on a chain of `relays` nodes, checks a valid sample's bytes on both
// ends of every hop, then routes hop `around` around its tunnel (its first node sends the
// server's site in clear to the next, which tunnels on) and expects an invalid sample
// that names that hop.
void chain_carries_the_test_on_every_hop(const std::string& product, int relays, int around) {
  std::string dir = make_temp_dir("chain");
  std::string file = dir + "/chain.toml";
  std::ofstream(file) << chain_topology(relays);
  Plan plan = plan_for(file);
  ASSERT_EQ(plan.hops.size(), static_cast<size_t>(relays - 1));
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, product);
  ASSERT_TRUE(spec.ok());
  Plan vpn_plan = plan.vpn_only();
  std::vector<std::string> names;
  for (int i = 1; i <= relays; ++i) names.push_back("r" + std::to_string(i));
  auto keys = prepare_node_keys(dir + "/keys", names);
  ASSERT_TRUE(keys.ok());
  std::unique_ptr<NodeRuntime> topo;
  auto session = start_session(plan, vpn_plan, spec.value(), keys.value(), dir, &topo);
  ASSERT_TRUE(session.ok()) << session.error().format();
  // r2 runs one instance per hop: two daemons there.
  int on_r2 = 0;
  for (const auto& [node, pid] : (*session)->daemon_pids()) on_r2 += node == "r2";
  EXPECT_EQ(on_r2, 2);
  EXPECT_EQ((*session)->interfaces("r2").size(), 2u);
  ASSERT_TRUE(topo->add_routes(plan, PlanRoute::When::tunnel).ok());

  const std::string last = names.back();
  auto points = (*session)->points("r1", last);
  ASSERT_EQ(points.size(), 2u * plan.hops.size());
  EXPECT_EQ(points[0].key, "r1 (hop 1)");
  EXPECT_EQ(points[1].key, "r2 (hop 1)");
  EXPECT_EQ(points[2].key, "r2 (hop 2)");
  EXPECT_EQ(points.back().key, last + " (hop " + std::to_string(relays - 1) + ")");
  std::map<std::string, TunnelCounters> before;
  for (const auto& p : points) before[p.key] = (*session)->read_counters(p).value();
  SampleContext sc{.plan = &plan,
                   .test = &plan.tests[0],
                   .spec = &spec.value(),
                   .nodes = topo.get(),
                   .session = session->get(),
                   .raw_dir = dir,
                   .log_dir = dir,
                   .interrupt_fd = -1};
  bool interrupted = false;
  SampleRow good = run_sample(sc, "chained", 2, &interrupted);
  EXPECT_TRUE(good.valid) << good.reason;
  EXPECT_EQ(good.hops, relays - 1);
  // Every hop's tunnel carried at least what iperf3 delivered (the sample's own check, seen
  // from outside): into each hop at its near end, out of it at its far end.
  const double bytes = good.gbps * 1e9 / 8 * good.duration_s;
  EXPECT_GT(bytes, 1e6);
  for (const auto& p : points) {
    TunnelCounters d = (*session)->read_counters(p).value() - before[p.key];
    const uint64_t carried = p.side == "r1" ? d.if_tx : d.if_rx;
    EXPECT_GE(static_cast<double>(carried), bytes * 0.99) << p.key;
  }

  Plan bypass = plan;
  const std::string from = "r" + std::to_string(around);
  std::erase_if(bypass.routes, [&](const PlanRoute& r) { return r.node != from || r.dest.str() != "192.168.2.0/24"; });
  ASSERT_EQ(bypass.routes.size(), 2u);
  ASSERT_TRUE(topo->add_routes(bypass, PlanRoute::When::baseline).ok());
  SampleRow bad = run_sample(sc, "around-hop", 1, &interrupted);
  EXPECT_EQ(bad.status, "ok") << bad.reason;
  EXPECT_FALSE(bad.valid);
  EXPECT_NE(bad.reason.find("(hop " + std::to_string(around) + ")"), std::string::npos) << bad.reason;
  EXPECT_NE(bad.reason.find("did not cross the tunnel"), std::string::npos) << bad.reason;
  (*session)->stop();
  EXPECT_TRUE(topo->teardown(10).ok());
}

}  // namespace

TEST(Chain, TwoHopsOfWireguardGoCarryTheTestOnBothHopsAndARouteAroundOneIsInvalid) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  chain_carries_the_test_on_every_hop("wireguard-go", 3, 1);
}

TEST(Chain, TwoHopsOfNebulaCarryTheTestOnBothHopsAndARouteAroundOneIsInvalid) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("nebula");
  chain_carries_the_test_on_every_hop("nebula", 3, 1);
}

// The middle hop of three routed around: both ends' tunnels still carry every byte, so
// only the relays' counters of hop 2 show the short cut.
TEST(Chain, AThreeHopChainRoutedAroundItsMiddleHopIsInvalid) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  chain_carries_the_test_on_every_hop("wireguard-go", 4, 2);
}

// The whole run on topologies/multihop.toml with one short sample: valid rows at 1, 2 and
// 3 hops, and the hop-cost table in the summary.
TEST(Chain, TheMultihopRunGivesValidRowsAtEachHopCountAndTheHopCostTable) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string out = make_temp_dir("multihop");
  auto r = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/multihop.toml", "--product", "baseline", "--product", "wireguard-go",
                       "--samples", "1", "--duration", "1s", "--out", out});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  auto rows = read_results_csv(run_dir_in(out) + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  std::map<std::string, int> valid_hops;
  for (const auto& row : rows.value())
    if (row.valid && row.product == "wireguard-go") valid_hops[row.test] = row.hops;
  EXPECT_EQ(valid_hops, (std::map<std::string, int>{{"hop1", 1}, {"hop2", 2}, {"hop3", 3}}));
  std::string summary = read_file(run_dir_in(out) + "/summary.txt");
  EXPECT_NE(summary.find("hop cost"), std::string::npos) << summary;
  EXPECT_NE(summary.find("wireguard-go         hop3              3"), std::string::npos) << summary;
  EXPECT_TRUE(list_namespaces("vpnlab-hops-").empty()) << "namespaces left";
}

namespace {

// One 1 s sample of `product` on a shipped topology into `out`, which must exit 0: the hops
// of each test's valid row.
std::map<std::string, int> valid_hops_of_one_sample(const std::string& out, const std::string& topology,
                                                    const std::string& product) {
  auto r = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/" + topology, "--product", product, "--samples", "1", "--duration",
                       "1s", "--out", out});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  auto rows = read_results_csv(run_dir_in(out) + "/results.csv");
  EXPECT_TRUE(rows.ok()) << rows.error().format();
  std::map<std::string, int> valid_hops;
  if (rows.ok())
    for (const auto& row : rows.value())
      if (row.valid) valid_hops[row.test] = row.hops;
  return valid_hops;
}

// A user's copy of `product`'s spec named `variant` (a shipped product's own name is the
// shipped spec), `from` becoming `to`, built as `product` is: the products directory.
std::string built_variant(const std::string& product, const std::string& variant, const std::string& from,
                          const std::string& to) {
  std::string products = product_variant(product, variant, from, to);
  std::string file = products + "/" + variant + "/product.toml";
  std::string text = read_file(file);
  text.replace(text.find("default = true"), 14, "default = true\nbuild = \"" + product + "\"");
  std::ofstream(file) << text;
  return products;
}

// A copy of `product`'s spec whose [path] `relayed` line `from` becomes `to` (it claims a
// path the traffic did not take), run for one sample on field-paths: its direct row stays
// valid; the reasons its relayed rows are invalid.
std::vector<std::string> relayed_reasons_of_a_false_claim(const std::string& product, const std::string& from,
                                                          const std::string& to) {
  const std::string variant = product + "-claims-direct";
  std::string products = built_variant(product, variant, from, to);
  std::string out = make_temp_dir("relay");
  auto r = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/field-paths.toml", "--product", variant, "--samples", "1",
                       "--duration", "1s", "--out", out},
                      {{"VPNLAB_PRODUCTS", products}});
  auto rows = read_results_csv(run_dir_in(out) + "/results.csv");
  EXPECT_TRUE(rows.ok()) << r.out << r.err;
  std::vector<std::string> reasons;
  if (rows.ok())
    for (const auto& row : rows.value()) {
      if (row.test == "direct") {
        EXPECT_TRUE(row.valid) << row.reason;
        continue;
      }
      EXPECT_FALSE(row.valid);
      reasons.push_back(row.reason);
    }
  EXPECT_TRUE(list_namespaces("vpnlab-field-").empty()) << "namespaces left";
  return reasons;
}

}  // namespace

// Nebula's own relay: a2 and b2 share no link, so Nebula carries their packets through r2.
// Valid rows need the ends' tunnels and r2's links to carry every byte both ways.
TEST(Chain, NebulasNativeRelayGivesValidRowsThroughTheRelay) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("nebula");
  std::string out = make_temp_dir("relay");
  EXPECT_EQ(valid_hops_of_one_sample(out, "nebula-relay.toml", "nebula"),
            (std::map<std::string, int>{{"direct", 1}, {"relayed", 2}}));
  // Nebula says it went through the relay.
  bool via_relay = false;
  for (const auto& f : std::filesystem::recursive_directory_iterator(run_dir_in(out) + "/logs/nebula"))
    if (f.path().filename().string().rfind("a2-", 0) == 0 &&
        read_file(f.path().string()).find("via relay") != std::string::npos)
      via_relay = true;
  EXPECT_TRUE(via_relay);
  EXPECT_TRUE(list_namespaces("vpnlab-relay-").empty()) << "namespaces left";
  // wireguard-go has no relay of its own: it runs the direct test, and each relayed sample
  // is a kept row that says why it was not run. That is no failure of the run (exit 0).
  std::string out2 = make_temp_dir("relay");
  auto partly = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/nebula-relay.toml", "--product", "wireguard-go", "--samples",
                            "1", "--duration", "1s", "--out", out2});
  EXPECT_EQ(partly.status, 0) << partly.err;
  EXPECT_NE(partly.err.find(
                "wireguard-go: test 'relayed' is not run (its rows say why): product 'wireguard-go' declares no relay"),
            std::string::npos)
      << partly.err;
  auto rows2 = read_results_csv(run_dir_in(out2) + "/results.csv");
  ASSERT_TRUE(rows2.ok()) << rows2.error().format();
  std::map<std::string, std::string> reasons;
  for (const auto& row : rows2.value()) reasons[row.test] = row.valid ? "valid" : row.reason;
  EXPECT_EQ(reasons, (std::map<std::string, std::string>{
                         {"direct", "valid"},
                         {"relayed",
                          "not run: product 'wireguard-go' declares no relay that vpnlab can put on chain 'relayed' "
                          "(topology = [\"relay\"] in its product.toml)"}}));
  EXPECT_TRUE(list_namespaces("vpnlab-relay-").empty()) << "namespaces left";
}

// EasyTier's relay (topologies/field-paths.toml): a2 and b2 dial only r2, share no link and
// have no route to each other, so r2 forwards between them. Valid rows need the ends'
// tunnels and r2's links to carry every byte, and EasyTier's route table to name r2 as the
// next hop. A spec that claims the relayed path is direct gets every relayed row invalid.
TEST(Chain, EasyTierRelaysThroughAPeerBothEndsDialAndItsRouteNamesIt) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "easytier");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  if (auto av = availability_for(spec.value(), "netns"); !av.available) GTEST_SKIP() << av.reason;
  std::string out = make_temp_dir("relay");
  EXPECT_EQ(valid_hops_of_one_sample(out, "field-paths.toml", "easytier"),
            (std::map<std::string, int>{{"direct", 1}, {"relayed", 2}}));
  const std::string route = read_file(run_dir_in(out) + "/logs/easytier/relayed-hop-1/a2-path.out");
  EXPECT_NE(route.find("10.77.0.10"), std::string::npos) << route;
  EXPECT_NE(route.find("r2"), std::string::npos) << route;
  EXPECT_TRUE(list_namespaces("vpnlab-field-").empty()) << "namespaces left";

  auto reasons = relayed_reasons_of_a_false_claim(
      "easytier",
      "relayed = \"│ {{peer_overlay_address}} │ {{peer_name}} │ │ {{relay_overlay_address}} │ {{relay_name}} │\"",
      "relayed = \"│ {{peer_overlay_address}} │ {{peer_name}} │ │ DIRECT │\"");
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("easytier-cli' did not say '│ 10.77.0.11 │ b2 │ │ DIRECT │' (it said: │ 10.77.0.11 │ b2 │ "
                            "│ 10.77.0.10 │ r2 │"),
            std::string::npos)
      << reasons[0];
}

// Tailscale's relay (topologies/field-paths.toml): the relayed hop is a tailnet of its own,
// whose headscale names the derper on r2 as its one DERP region. a2 and b2 have no route to
// each other, so DERP carries their packets: valid rows need r2's links to carry every byte
// and `tailscale ping` to answer "via DERP(lab)"; the relayed row records the relay's own
// CPU and memory. A spec that claims the relayed path is direct gets every relayed row
// invalid, with what tailscale said.
TEST(Chain, TailscaleRelaysThroughADerpServerOnTheRelayNode) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "tailscale");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  if (auto av = availability_for(spec.value(), "netns"); !av.available) GTEST_SKIP() << av.reason;
  std::string out = make_temp_dir("relay");
  EXPECT_EQ(valid_hops_of_one_sample(out, "field-paths.toml", "tailscale"),
            (std::map<std::string, int>{{"direct", 1}, {"relayed", 2}}));
  const std::string pong = read_file(run_dir_in(out) + "/logs/tailscale/relayed-hop-1/a2-path.out");
  EXPECT_NE(pong.find("pong from b2 (10.77.0.11) via DERP(lab)"), std::string::npos) << pong;
  EXPECT_NE(read_file(run_dir_in(out) + "/logs/tailscale/direct-hop-1/a1-path.out").find("via 192.168.12.2:51820"),
            std::string::npos);
  // The relay's own cost: derper and tailscaled on r2, for the relayed row only.
  auto rows = read_results_csv(run_dir_in(out) + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  for (const auto& row : rows.value()) {
    EXPECT_EQ(row.relay_rss_kb > 0, row.test == "relayed") << row.test << ": " << row.relay_rss_kb;
    EXPECT_EQ(row.relay_cpu_s > 0, row.test == "relayed") << row.test << ": " << row.relay_cpu_s;
  }
  EXPECT_TRUE(list_namespaces("vpnlab-field-").empty()) << "namespaces left";

  // The ends given a link of their own: Tailscale finds the direct path, and the relayed row,
  // whose traffic went direct, is invalid (the link toward the relay did not carry it).
  std::string side = make_temp_dir("relay");
  std::string text0 = read_file(VPNLAB_TOPOLOGIES "/field-paths.toml");
  text0.replace(text0.find("[bench]"), 7,
                "[[link]]\nname = \"a2b2\"\nnodes = [\"a2\", \"b2\"]\nsubnet = \"192.168.24.0/24\"\n\n[bench]");
  std::ofstream(side + "/side-link.toml") << text0;
  std::string out3 = make_temp_dir("relay");
  auto direct = vpnlab_cli(
      {"run", side + "/side-link.toml", "--product", "tailscale", "--samples", "1", "--duration", "1s", "--out", out3});
  auto rows3 = read_results_csv(run_dir_in(out3) + "/results.csv");
  ASSERT_TRUE(rows3.ok()) << direct.out << direct.err;
  int went_direct = 0;
  for (const auto& row : rows3.value()) {
    if (row.test != "relayed") continue;
    ++went_direct;
    EXPECT_FALSE(row.valid);
    EXPECT_GT(row.gbps, 1) << "direct: many times what DERP carries";
    EXPECT_NE(row.reason.find("the underlay toward the peers sent"), std::string::npos) << row.reason;
    EXPECT_NE(row.reason.find("the tunnel's packets went elsewhere"), std::string::npos) << row.reason;
  }
  EXPECT_EQ(went_direct, 1);
  EXPECT_TRUE(list_namespaces("vpnlab-field-").empty()) << "namespaces left";

  auto reasons = relayed_reasons_of_a_false_claim("tailscale", "relayed = \"via DERP(lab)\"",
                                                  "relayed = \"via {{peer_underlay_address}}:{{port}}\"");
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find(
                "/tailscale' did not say 'via 192.168.23.2:51820' (it said: pong from b2 (10.77.0.11) via DERP(lab)"),
            std::string::npos)
      << reasons[0];
}

// A topology whose only path is relayed: the plaintext check then watches the relayed path,
// at the client's end, toward the relay. Tailscale's ends reach DERP over TCP 3340 (its spec's
// relay_port), not its UDP port: the check must count that port, or every row fails with
// "only 636 of 55824097 IPv4 bytes on the underlay used port 51820" (as it did). A spec
// without relay_port shows the check is not blind to the port.
std::string relay_only_topology() {
  std::string dir = make_temp_dir("relay-only");
  std::ofstream(dir + "/relay-only.toml") << R"([lab]
name = "relonly"
[overlay]
subnet = "10.77.0.0/24"
mtu = 1400
port = 51820
[[node]]
name = "a2"
cpus = [0]
[[node]]
name = "r2"
cpus = [1]
[[node]]
name = "b2"
cpus = [1]
[[chain]]
name = "relayed"
nodes = ["a2", "r2", "b2"]
relay = "native"
[[link]]
name = "a2r2"
nodes = ["a2", "r2"]
subnet = "192.168.22.0/24"
[[link]]
name = "r2b2"
nodes = ["r2", "b2"]
subnet = "192.168.23.0/24"
[bench]
samples = 1
duration = "1s"
warmup = "1s"
[[bench.test]]
name = "relayed"
client = "a2"
server = "b2"
)";
  return dir + "/relay-only.toml";
}

TEST(Chain, ARelayOnlyPathIsProvenOnTheRelaysTransport) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "tailscale");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  if (auto av = availability_for(spec.value(), "netns"); !av.available) GTEST_SKIP() << av.reason;
  const std::string topology = relay_only_topology();
  std::string out = make_temp_dir("relay-only");
  auto r = vpnlab_cli({"run", topology, "--product", "tailscale", "--out", out, "--no-history"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("plaintext check: no payload in clear on the underlay"), std::string::npos) << r.err;
  auto rows = read_results_csv(run_dir_in(out) + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  for (const auto& row : rows.value())
    if (row.product == "tailscale") {
      EXPECT_TRUE(row.valid) << row.reason;
    }

  std::string products = built_variant("tailscale", "tailscale-no-relay-port", "relay_port = \"3340\"\n", "");
  std::string out2 = make_temp_dir("relay-only");
  auto blind = vpnlab_cli({"run", topology, "--product", "tailscale-no-relay-port", "--out", out2, "--no-history"},
                          {{"VPNLAB_PRODUCTS", products}});
  EXPECT_NE(blind.status, 0);
  auto rows2 = read_results_csv(run_dir_in(out2) + "/results.csv");
  ASSERT_TRUE(rows2.ok()) << blind.out << blind.err;
  int rows_of_the_copy = 0;
  for (const auto& row : rows2.value()) {
    if (row.product != "tailscale-no-relay-port") continue;
    ++rows_of_the_copy;
    EXPECT_FALSE(row.valid);
    EXPECT_NE(row.reason.find("IPv4 bytes on the underlay used port 51820 ("), std::string::npos) << row.reason;
    EXPECT_NE(row.reason.find(" frames on a2/"), std::string::npos) << row.reason;
  }
  EXPECT_EQ(rows_of_the_copy, 1);
  EXPECT_TRUE(list_namespaces("vpnlab-relonly-").empty()) << "namespaces left";
}

// The relay cost table of field-paths.toml has every product that declares a relay and can
// run here, each with its relayed-over-direct ratio and the relay's own cost; a product added
// with topology = ["relay"] joins this test by itself.
TEST(Chain, TheRelayCostTableHasEveryProductWithARelay) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::vector<std::string> args = {"run", VPNLAB_TOPOLOGIES "/field-paths.toml", "--samples", "2", "--duration", "1s"};
  std::vector<std::string> relaying;
  for (const auto& name : list_products(VPNLAB_PRODUCTS_DIR)) {
    auto spec = load_product(VPNLAB_PRODUCTS_DIR, name);
    if (!spec.ok() || std::count(spec->shapes.begin(), spec->shapes.end(), "relay") == 0) continue;
    if (!availability_for(spec.value(), "netns").available) continue;
    relaying.push_back(name);
    args.insert(args.end(), {"--product", name});
  }
  ASSERT_GE(relaying.size(), 3u) << "nebula, easytier and tailscale at least";
  std::string out = make_temp_dir("relay");
  args.insert(args.end(), {"--out", out});
  auto r = vpnlab_cli(args);
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string summary = read_file(run_dir_in(out) + "/summary.txt");
  const std::string own_cost = summary.substr(std::min(summary.size(), summary.find("the relay's own cost")));
  for (const auto& name : relaying) {
    const std::string row = name + std::string(21 - std::min<size_t>(20, name.size()), ' ') + "relayed           2";
    const size_t at = summary.find(row);
    ASSERT_NE(at, std::string::npos) << name << "\n" << summary;
    const std::string line = summary.substr(at, summary.find('\n', at) - at);
    EXPECT_NE(line.find(" (0."), std::string::npos) << "a relayed-over-direct ratio with its interval: " << line;
    EXPECT_NE(own_cost.find(name + std::string(21 - std::min<size_t>(20, name.size()), ' ') + "relayed"),
              std::string::npos)
        << name << "\n"
        << own_cost;
  }
  EXPECT_TRUE(list_namespaces("vpnlab-field-").empty()) << "namespaces left";
}
