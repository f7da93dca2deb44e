// Every shipped product, for real: comes up on two fresh namespaces, carries the overlay
// MTU with DF, moves a short iperf3 sample through its tunnel (counters prove it), and
// leaves nothing behind. A product not installed here is skipped with its reason.
#include <chrono>
#include <filesystem>
#include <fstream>

#include "lab/app/run_request.h"
#include "lab/model/finalize.h"
#include "lab/model/product_spec.h"
#include "lab/record/run_layout.h"
#include "lab/run/keys.h"
#include "lab/run/product_probe.h"
#include "lab/run/runner.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

class EveryProduct : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryProduct, ComesUpCarriesASampleThroughItsTunnelAndLeavesNothing) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, GetParam());
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  auto av = availability_for(spec.value(), "netns");
  if (!av.available) GTEST_SKIP() << GetParam() << ": " << av.reason;
  ShortRun run = short_run({GetParam()});
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  const RunReport& report = run.report.value();
  ASSERT_EQ(report.products.size(), 1u);
  EXPECT_TRUE(report.products[0].started) << report.products[0].failure;
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_EQ(report.rows[0].status, "ok") << report.rows[0].reason;
  EXPECT_TRUE(report.rows[0].valid) << report.rows[0].reason;
  EXPECT_GT(report.rows[0].gbps, 0.01);
  EXPECT_TRUE(report.products[0].leftovers.empty()) << report.products[0].leftovers.front();
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

// Every product folder, and every registry build its plain name does not run (NAME@VERSION:
// later Nebula releases, the newest wireguard-go).
INSTANTIATE_TEST_SUITE_P(Shipped, EveryProduct, ::testing::ValuesIn(list_products_and_builds(VPNLAB_PRODUCTS_DIR)),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param;
                           for (char& c : n)
                             if (c == '-' || c == '@' || c == '.') c = '_';
                           return n;
                         });

TEST(Products, ShapeAndMtuAreRefusedBeforeAnythingStarts) {
  auto openvpn = load_product(VPNLAB_PRODUCTS_DIR, "openvpn");
  auto swan = load_product(VPNLAB_PRODUCTS_DIR, "strongswan-libipsec");
  ASSERT_TRUE(openvpn.ok() && swan.ok());
  Plan mesh = plan_for(VPNLAB_TOPOLOGIES "/bridge3.toml");
  auto s = check_product_fits(openvpn.value(), mesh);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "product 'openvpn' does not carry a mesh overlay of 3 VPN nodes (it supports: p2p, site-to-site)");
  Plan p2p = plan_for(VPNLAB_TOPOLOGIES "/quick.toml");
  EXPECT_TRUE(check_product_fits(swan.value(), p2p).ok());
  p2p.overlay_mtu = 1420;
  auto m = check_product_fits(swan.value(), p2p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message,
            "overlay MTU 1420 is more than product 'strongswan-libipsec' carries (1400 over a 1500-byte underlay)");
}

// Without a warm-up the check takes a 1 s sample of its own; with one, the product's first
// warm-up carries it and no sample of its own runs. Either way the raw protocol's payload
// shows and the encrypted one's does not.
TEST(Products, QuicktunInRawModeFailsThePlaintextCheck) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("quicktun");
  // The same spec with the unencrypted raw protocol: the tunnel works, the payload shows.
  std::string products =
      product_variant("quicktun", "quicktun-raw", "IF_QT_PROTOCOL = \"nacltai\"", "IF_QT_PROTOCOL = \"raw\"");
  std::filesystem::copy(VPNLAB_PRODUCTS_DIR "/quicktun", products + "/quicktun",
                        std::filesystem::copy_options::recursive);
  for (double warmup_s : {0.0, 1.0}) {
    SCOPED_TRACE("warm-up " + std::to_string(warmup_s) + " s");
    ShortRun run =
        short_run({"quicktun-raw", "quicktun"}, products, 1, VPNLAB_TOPOLOGIES "/quick.toml", true, {}, warmup_s);
    ASSERT_TRUE(run.report.ok()) << run.report.error().format();
    const auto& rows = run.report->rows;
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].product, "quicktun-raw");
    EXPECT_EQ(rows[0].status, "ok") << rows[0].reason;
    EXPECT_FALSE(rows[0].valid);
    EXPECT_NE(rows[0].reason.find("plaintext of the payload seen on the underlay"), std::string::npos)
        << rows[0].reason;
    EXPECT_TRUE(rows[1].valid) << rows[1].reason;
    EXPECT_TRUE(run.report->products[1].plaintext_checked);
    EXPECT_EQ(run.report->products[1].plaintext, "");
    const std::string own_sample = raw_dir(run.run_dir, "quicktun", "a-to-b") + "/plaintext-check" + kIperfSuffix;
    EXPECT_EQ(std::filesystem::exists(own_sample), warmup_s == 0) << own_sample;
    EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
  }
}

// Tailscale's data path where the nodes share a link must be direct: its DERP relay (derper
// beside headscale, over the control links) could carry it too. With the direct path blocked
// (neither node answers ARP on the underlay, while the control links still work) the nodes
// come up through the relay and traffic flows, and every row is invalid: the underlay toward
// the peer did not carry it (the tunnel proof; [path] would say DERP next). The service's
// namespace and processes go with the rest.
TEST(Products, TailscaleThroughItsRelayWhereADirectPathIsAskedIsInvalid) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "tailscale");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  if (auto av = availability_for(spec.value(), "netns"); !av.available) GTEST_SKIP() << av.reason;
  // The same folder elsewhere (its registry build is found by its name), one step more.
  std::string products = product_variant(
      "tailscale", "tailscale", "[[step]]\ndaemon = [\"tailscaled\"",
      "[[step]]\nsysctl = { \"net/ipv4/conf/lan/arp_ignore\" = \"8\" }\n\n[[step]]\ndaemon = [\"tailscaled\"");
  ShortRun run = short_run({"tailscale"}, products);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  const auto& outcome = run.report->products[0];
  EXPECT_TRUE(outcome.started) << outcome.failure;
  ASSERT_FALSE(run.report->rows.empty());
  for (const auto& row : run.report->rows) {
    EXPECT_FALSE(row.valid);
    EXPECT_GT(row.gbps, 0) << "the relay carried the sample";
    EXPECT_NE(row.reason.find("the underlay toward the peers sent"), std::string::npos) << row.reason;
    EXPECT_NE(row.reason.find("the tunnel's packets went elsewhere"), std::string::npos) << row.reason;
  }
  EXPECT_TRUE(outcome.leftovers.empty()) << outcome.leftovers.front();
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

// A control service that never becomes ready is the product's located failure within its
// step's timeout, and leaves nothing: its process and namespace go with the topology.
TEST(Products, AServiceThatNeverComesUpIsALocatedFailureThatLeavesNothing) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "tailscale");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  if (auto av = availability_for(spec.value(), "netns"); !av.available) GTEST_SKIP() << av.reason;
  // headscale listens on 8080; the variant waits for a port nothing opens.
  std::string products = product_variant("tailscale", "tailscale", "wait_listen = \"8080\"\ntimeout = \"20s\"",
                                         "wait_listen = \"8099\"\ntimeout = \"2s\"");
  auto t0 = std::chrono::steady_clock::now();
  ShortRun run = short_run({"tailscale"}, products);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  const auto& outcome = run.report->products[0];
  EXPECT_FALSE(outcome.started);
  EXPECT_NE(outcome.failure.find(
                "tailscale's service 'headscale': node 'svc-headscale': nothing listens on TCP port 8099 after 2 s"),
            std::string::npos)
      << outcome.failure;
  // The message above names the 2 s wait, not the 20 s one; the time is a figure.
  std::printf("[ figures ] two failed bring-ups of tailscale: %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  EXPECT_TRUE(outcome.leftovers.empty()) << outcome.leftovers.front();
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

TEST(Products, AUserspaceStandInForAKernelProductIsRefused) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  // Claims to be the kernel's WireGuard but starts wireguard-go (a TUN device).
  std::string products =
      product_variant("wireguard-go", "fake-kernel-wg", "interface_kind = \"tun\"", "interface_kind = \"wireguard\"");
  ShortRun run = short_run({"fake-kernel-wg"}, products);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  const auto& outcome = run.report->products[0];
  EXPECT_FALSE(outcome.started);
  EXPECT_NE(outcome.failure.find("wg0 is of kind 'tun', not 'wireguard'"), std::string::npos) << outcome.failure;
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

TEST(Products, NebulaAndQuicktunCarryTheSameX25519KeysAsWireGuard) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("nebula");
  VPNLAB_REQUIRE_PROGRAM("quicktun");
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  ShortRun run = short_run({"nebula", "quicktun"});
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  const std::string& run_dir = run.run_dir;
  auto keys = prepare_node_keys(run_dir + "/secrets/keys", {"a", "b"});  // reads the run's keys back
  ASSERT_TRUE(keys.ok());
  for (const char* node : {"a", "b"}) {
    std::string wg_public_hex = to_hex(keys->at(node).public_key.data(), 32);
    // Nebula: the certificate the run CA signed holds the node's X25519 public key.
    SpawnSpec s;
    s.argv = {"nebula-cert", "print", "-json", "-path", run_dir + "/nodes/nebula/" + node + "/host.crt"};
    s.stdout_path = run_dir + "/cert.json";
    auto r = run_command(s, 10);
    ASSERT_TRUE(r.ok() && r->exit_status == 0);
    EXPECT_NE(read_file(s.stdout_path).find("\"publicKey\":\"" + wg_public_hex + "\""), std::string::npos)
        << read_file(s.stdout_path);
    // quicktun: its private key file is the same secret, in hex.
    std::string qt = read_file(run_dir + "/secrets/quicktun/" + node + "/private.key");
    EXPECT_EQ(qt, to_hex(keys->at(node).secret.data(), 32) + "\n");
  }
}

TEST(Products, MeshProductsCarryEveryTestOnAThreeNodeBridge) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("nebula");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  // bridge3: a -> c forward and c -> b reverse with MSS 1200, every node a peer of every other.
  ShortRun run = short_run({"nebula", "wireguard-go"}, VPNLAB_PRODUCTS_DIR, 1, VPNLAB_TOPOLOGIES "/bridge3.toml");
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 4u);
  for (const auto& r : run.report->rows) {
    EXPECT_EQ(r.status, "ok") << r.product << " " << r.test << ": " << r.reason;
    EXPECT_TRUE(r.valid) << r.product << " " << r.test << ": " << r.reason;
  }
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}
