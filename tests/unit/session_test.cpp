// A product session's steps and failure paths against a FakeRuntime: which calls it makes
// on which node in which order, and what its errors say, without root or a kernel.
#include <gtest/gtest.h>

#include <sstream>

#include "../temp_paths.h"
#include "fake_runtime.h"
#include "lab/base/fs_util.h"
#include "lab/model/product_spec.h"
#include "lab/model/topology.h"
#include "lab/run/keys.h"
#include "lab/run/product_session.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

struct SessionFixture {
  Plan plan;
  ProductSpec spec;
  std::map<std::string, X25519KeyPair> keys;
  std::string run_dir = make_temp_dir("session");

  explicit SessionFixture(const std::string& product) {
    auto topo = load_topology(VPNLAB_TOPOLOGIES "/quick.toml");
    EXPECT_TRUE(topo.ok());
    PlanOptions po;
    po.run_id = "session-test";
    po.tag = "s";
    plan = make_plan(*topo, po).value().vpn_only();
    spec = load_product(VPNLAB_PRODUCTS_DIR, product).value();
    for (const auto& n : plan.nodes) keys[n.name] = generate_x25519();
  }
  Result<std::unique_ptr<ProductSession>> start(FakeRuntime& fake) {
    return ProductSession::start(ProductSession::Context{.plan = &plan,
                                                         .nodes = &fake,
                                                         .spec = &spec,
                                                         .keys = &keys,
                                                         .run_dir = run_dir,
                                                         .interrupt_fd = -1,
                                                         .run_values = {{"psk", std::string(64, '0')}}});
  }
};

}  // namespace

TEST(Session, WireguardGoStepsRunInEachNodeLastNodeFirst) {
  SessionFixture f("wireguard-go");
  FakeRuntime fake;
  fake.daemons = {"wireguard-go"};
  auto session = f.start(fake);
  ASSERT_TRUE(session.ok()) << session.error().format();
  // b starts first (the first node initiates and starts when its peer listens), each node:
  // daemon, its link, its config, address and MTU; then every node pings every peer, then
  // a full-size packet with DF.
  std::vector<std::string> steps;
  for (const auto& c : fake.calls)
    if (c.rfind("ping", 0) != 0) steps.push_back(c.substr(0, c.find(" /")));
  EXPECT_EQ(steps, (std::vector<std::string>{"spawn b wireguard-go wg0", "wait_for_link b wg0",
                                             "spawn b wg setconf wg0", "configure b wg0 10.77.0.2/24 1400",
                                             "spawn a wireguard-go wg0", "wait_for_link a wg0",
                                             "spawn a wg setconf wg0", "configure a wg0 10.77.0.1/24 1400"}));
  EXPECT_EQ(fake.calls_starting("ping"),
            (std::vector<std::string>{"ping a 10.77.0.2", "ping b 10.77.0.1", "ping a 10.77.0.2 df 1372",
                                      "ping b 10.77.0.1 df 1372"}));
  // The config holds the node's key and goes to secrets/, not to the logs.
  std::string conf = fake.calls_starting("spawn a wg setconf")[0];
  EXPECT_NE(conf.find(f.run_dir + "/secrets/"), std::string::npos) << conf;
  // Stopping ends both daemons.
  ASSERT_EQ(fake.started.size(), 4u);
  (*session)->stop();
  for (const auto& p : fake.started) EXPECT_FALSE(p->running) << p->name;
}

// The threads axis of a [bench] sweep reaches the products: at each point the daemons get
// that point's data-plane threads (wireguard-go: GOMAXPROCS).
TEST(Session, EachThreadsPointGivesTheDaemonsItsThreads) {
  std::string text = read_file_text(VPNLAB_TOPOLOGIES "/quick.toml");
  text.replace(text.find("[bench]\n"), 8, "[bench]\nsweep = { threads = [1, 2] }\n");
  auto topo = parse_topology_text(text, "quick.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  PlanOptions po;
  po.run_id = "session-test";
  po.tag = "s";
  const Plan swept = make_plan(*topo, po).value().vpn_only();
  for (int point = 0; point < 2; ++point) {
    SessionFixture f("wireguard-go");
    f.plan = swept.at_lab_point(point);
    FakeRuntime fake;
    fake.daemons = {"wireguard-go"};
    auto session = f.start(fake);
    ASSERT_TRUE(session.ok()) << session.error().format();
    for (const char* node : {"a", "b"})
      EXPECT_EQ(fake.env_of[std::string(node) + " wireguard-go"]["GOMAXPROCS"], std::to_string(point + 1)) << node;
    (*session)->stop();
  }
}

TEST(Session, ADaemonThatDiesAtOnceIsTheErrorNotTheMissingLink) {
  SessionFixture f("wireguard-go");
  FakeRuntime fake;
  fake.exit_status = {{"wireguard-go", 3}};  // exits at once with status 3
  fake.links_appear = false;
  auto session = f.start(fake);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().message.substr(0, session.error().message.find('\n')),
            "node 'b': 'wireguard-go' exited with status 3");
  EXPECT_EQ(fake.calls_starting("spawn a").size(), 0u) << "nothing starts on a after b failed";
}

TEST(Session, ALinkThatNeverAppearsIsNamedWhenTheDaemonRuns) {
  SessionFixture f("wireguard-go");
  FakeRuntime fake;
  fake.daemons = {"wireguard-go"};
  fake.links_appear = false;
  auto session = f.start(fake);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().message, "node 'b': link 'wg0' did not appear within 5 s");
  ASSERT_EQ(fake.started.size(), 1u);
  EXPECT_FALSE(fake.started[0]->running) << "what started is stopped again";
}

TEST(Session, UnansweredPingsAreNotReady) {
  SessionFixture f("wireguard-go");
  FakeRuntime fake;
  fake.daemons = {"wireguard-go"};
  fake.pings_answered = false;
  auto session = f.start(fake);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().message.rfind("not ready: from node 'a' to 'b': no answer from 10.77.0.2", 0), 0u)
      << session.error().message;
}

TEST(Session, AProgramThatCannotStartFailsTheBringUp) {
  SessionFixture f("wireguard-go");
  FakeRuntime fake;
  fake.unstartable = {"wireguard-go"};
  auto session = f.start(fake);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().message, "node 'b': cannot start 'wireguard-go'");
}

// A kernel link the spec made (create_link) is the session's: stopping removes it, last
// made first, so the teardown audit finds nothing the product left.
TEST(Session, StoppingRemovesTheLinksItsStepsMade) {
  SessionFixture f("wireguard-kernel");
  FakeRuntime fake;
  fake.link_kind = "wireguard";
  auto session = f.start(fake);
  ASSERT_TRUE(session.ok()) << session.error().format();
  EXPECT_TRUE(fake.calls_starting("delete_link").empty());
  (*session)->stop();
  EXPECT_EQ(fake.calls_starting("delete_link"), (std::vector<std::string>{"delete_link a wg0", "delete_link b wg0"}));
}

TEST(Session, AStandInOfTheWrongKindIsRefused) {
  SessionFixture f("wireguard-kernel");
  FakeRuntime fake;
  fake.link_kind = "tun";  // a userspace stand-in where the kernel's WireGuard is asked for
  auto session = f.start(fake);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().message, "node 'a': wg0 is of kind 'tun', not 'wireguard'");
  EXPECT_EQ(fake.calls_starting("create_link").size(), 2u);
}

// start_order = "file" starts nodes by overlay address, as a control server numbers them;
// a relay chain's hop lists its relay first but gives it the middle address. Only the relay
// runs the steps for nodes = "relays" (Tailscale's derper).
TEST(Session, FileOrderIsOverlayAddressOrderAndRelayStepsRunOnlyOnTheRelay) {
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/field-paths.toml");
  ASSERT_TRUE(topo.ok());
  Plan plan = make_plan(*topo, PlanOptions{"session-test", "s"}).value().hop_plan(1);
  ASSERT_EQ(plan.nodes.front().name, "r2");
  ProductSpec spec = load_product(VPNLAB_PRODUCTS_DIR, "tailscale").value();
  std::map<std::string, X25519KeyPair> keys;
  std::string run_dir = make_temp_dir("session");
  ProductSession::Context ctx{.plan = &plan,
                              .nodes = nullptr,
                              .spec = &spec,
                              .keys = &keys,
                              .run_dir = run_dir,
                              .interrupt_fd = -1,
                              .run_values = {{"psk", std::string(64, '0')}}};
  for (const auto& n : plan.nodes)
    ctx.node_values[n.name] = {{"headscale_address", "172.31.78.1"}, {"headscale_authkey", "k"}};
  FakeRuntime fake;
  fake.daemons = {"tailscaled", "derper"};
  ctx.nodes = &fake;
  auto session = ProductSession::start(ctx);
  std::vector<std::string> spawns;
  for (const auto& c : fake.calls_starting("spawn")) {  // "spawn NODE PROGRAM ...": the program's file name
    std::istringstream words(c);
    std::string verb, node, program;
    words >> verb >> node >> program;
    spawns.push_back(verb + " " + node + " " + program.substr(program.rfind('/') + 1));
  }
  EXPECT_EQ(spawns, (std::vector<std::string>{"spawn a2 tailscaled", "spawn a2 tailscale", "spawn r2 derper",
                                              "spawn r2 tailscaled", "spawn r2 tailscale", "spawn b2 tailscaled",
                                              "spawn b2 tailscale"}))
      << (session.ok()
              ? ""
              : session.error().format());  // the fake's TUN has no MTU: the session then fails, after its steps
}
