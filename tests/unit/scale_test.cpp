// Mesh-scale files: what they accept and refuse (located messages), the mesh each size
// becomes (an ordinary topology, planned like any other), which products can form one,
// and the table.
#include <gtest/gtest.h>

#include "../temp_paths.h"
#include "fake_runtime.h"
#include "lab/model/finalize.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/model/scale_spec.h"
#include "lab/model/topology.h"
#include "lab/results/scale_table.h"
#include "lab/run/mesh_scale.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

std::string scale_error_of(const std::string& text) {
  auto r = parse_scale_text(text, "s.toml");
  return r.ok() ? std::string() : r.error().where_and_what() + "\nhint: " + r.error().hint;
}

const char* kLab = "[lab]\nname = \"ms\"\n";

}  // namespace

TEST(Scale, TheShippedFileReadsAndEachSizeIsAMeshOfThatManyNodes) {
  auto spec = load_scale_spec(VPNLAB_TOPOLOGIES "/mesh-scale.toml");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  EXPECT_EQ(spec->sizes, (std::vector<int>{5, 25, 100}));
  EXPECT_EQ(spec->products, (std::vector<std::string>{"nebula", "wireguard-go", "tinc"}));
  for (int n : spec->sizes) {
    auto topo = parse_topology_text(mesh_topology_text(*spec, n), "mesh.toml");
    ASSERT_TRUE(topo.ok()) << n << ": " << topo.error().format();
    PlanOptions po;
    po.run_id = "20261202-000000-abcd";
    po.tag = "abcd";
    po.cpu_count = 2;
    auto plan = make_plan(*topo, po);
    ASSERT_TRUE(plan.ok()) << n << ": " << plan.error().format();
    EXPECT_EQ(plan->nodes.size(), static_cast<size_t>(n));
    EXPECT_EQ(plan->vpn_nodes().size(), static_cast<size_t>(n)) << "every node is a peer";
    EXPECT_EQ(plan->bridges.size(), 1u) << "one bridge: every node reaches every other directly";
    EXPECT_TRUE(plan->bridges[0].static_neighbours)
        << "learned ARP entries of a large mesh overflow the kernel's shared table";
    ASSERT_EQ(plan->tests.size(), 1u);
    EXPECT_EQ(plan->tests[0].spec.client, "n1");
    EXPECT_EQ(plan->tests[0].spec.servers, std::vector<std::string>{"n" + std::to_string(n)});
    EXPECT_EQ(plan->samples, 1);
    // The products that form a mesh fit it; the p2p-only ones are refused with what they carry.
    for (const char* name : {"nebula", "wireguard-go", "openvpn", "fastd"}) {
      auto ps = load_product(VPNLAB_PRODUCTS_DIR, name);
      ASSERT_TRUE(ps.ok()) << ps.error().format();
      auto fits = check_product_fits(*ps, *plan);
      if (std::string(name) == "openvpn" || std::string(name) == "fastd") {
        ASSERT_FALSE(fits.ok()) << name;
        EXPECT_EQ(fits.error().message, "product '" + std::string(name) + "' does not carry a mesh overlay of " +
                                            std::to_string(n) + " VPN nodes (it supports: p2p, site-to-site)");
      } else {
        EXPECT_TRUE(fits.ok()) << name << ": " << fits.error().format();
      }
    }
  }
}

TEST(Scale, EveryMistakeIsNamedWithItsPlace) {
  EXPECT_EQ(scale_error_of(std::string(kLab) + "[scale]\nproducts = [\"nebula\"]\n"),
            "s.toml:1:1: scale: missing key 'nodes'\nhint: add nodes = [5, 25, 100] to [scale]");
  EXPECT_EQ(scale_error_of(std::string(kLab) + "[scale]\nnodes = [2]\nproducts = [\"nebula\"]\n"),
            "s.toml:4:10: scale: a mesh of 2 nodes\nhint: mesh sizes go from 3 to 250 (two nodes are no mesh: 'vpnlab "
            "run' measures them)");
  EXPECT_EQ(scale_error_of(std::string(kLab) + "[scale]\nnodes = [5, 5]\nproducts = [\"nebula\"]\n"),
            "s.toml:4:13: scale: a mesh of 5 nodes is listed twice\nhint: list each size once");
  EXPECT_EQ(scale_error_of(std::string(kLab) + "[scale]\nnodes = [5]\nproducts = [\"nebula\"]\nnode = 3\n"),
            "s.toml:6:8: scale: unknown key 'node'\nhint: did you mean 'nodes'?");
  EXPECT_EQ(scale_error_of(std::string(kLab) + "[scale]\nnodes = [5]\n"),
            "s.toml:3:1: scale: no products\nhint: add products = [\"nebula\", \"wireguard-go\"]");
  EXPECT_EQ(scale_error_of(std::string(kLab) +
                           "[scale]\nnodes = [100]\nproducts = [\"nebula\"]\noverlay = \"10.9.0.0/26\"\n"),
            "s.toml:6:11: scale: the overlay subnet 10.9.0.0/26 has room for fewer hosts than 100 nodes\nhint: use a "
            "larger subnet (a /16 has room for any mesh)");
  EXPECT_EQ(
      scale_error_of(std::string(kLab) + "[scale]\nnodes = [5]\nproducts = [\"nebula\"]\nconverge_timeout = \"1s\"\n"),
      "s.toml:6:20: scale: 'converge_timeout' must be a duration from 5 s to 3600 s\nhint: write converge_timeout = "
      "\"60s\"");
  EXPECT_EQ(scale_error_of("[scale]\nnodes = [5]\nproducts = [\"nebula\"]\n"),
            "s.toml:1:1: missing table [lab]\nhint: add [lab] with name = \"meshscale\"");
  // A link's neighbours are learned or static, nothing else.
  auto topo = parse_topology_text(
      "[lab]\nname = \"x\"\n[overlay]\nsubnet = \"10.77.0.0/24\"\n[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n"
      "[[node]]\nname = \"c\"\n[[link]]\nname = \"lan\"\nnodes = [\"a\", \"b\", \"c\"]\nsubnet = \"192.168.7.0/24\"\n"
      "neighbours = \"fixed\"\n[bench]\n[[bench.test]]\nname = \"t\"\nclient = \"a\"\nserver = \"b\"\n",
      "t.toml");
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.error().where_and_what() + "\nhint: " + topo.error().hint,
            "t.toml:15:14: link 'lan': neighbours = 'fixed'\nhint: write neighbours = \"static\" or \"learned\" (the "
            "default)");
  // Left out, the subnets have room for any mesh.
  auto plain = parse_scale_text(std::string(kLab) + "[scale]\nnodes = [250]\nproducts = [\"nebula\"]\n", "s.toml");
  ASSERT_TRUE(plain.ok()) << plain.error().format();
  EXPECT_EQ(plain->overlay.str(), "10.90.0.0/16");
  EXPECT_EQ(plain->underlay.str(), "192.168.88.0/22");
}

TEST(Scale, TheTableMarksContendedSizesAndSaysWhyARowIsMissing) {
  ScaleRow ok{"nebula", 5};
  ok.converge_s = 1.234;
  ok.sweep_s = 0.8;
  ok.pairs = ok.answered = 20;
  ok.bringup_cpu_s = 2.5;
  ok.rss_mb_median = 18.2;
  ok.rss_mb_max = 19.0;
  ok.threads_median = 9;
  ok.gbps = 0.21;
  ok.sample_valid = true;
  ScaleRow slow{"tinc", 100};
  slow.contended = true;
  slow.pairs = 9900;
  slow.answered = 9000;
  slow.reason = "not converged: 9000 of 9900 node pairs answered within 180 s (n1 -> n7 did not)";
  ScaleRow refused{"openvpn", 5};
  refused.reason = "refused: product 'openvpn' does not carry a mesh overlay of 5 VPN nodes (it supports: p2p)";
  std::string t = scale_table({ok, slow, refused});
  EXPECT_NE(
      t.find(
          "nebula                5       1.23     0.80          20       2.5      18.2      19.0         9    0.210"),
      std::string::npos)
      << t;
  EXPECT_NE(t.find("tinc               100*          -        -   9000/9900"), std::string::npos) << t;
  EXPECT_NE(t.find("not converged: 9000 of 9900"), std::string::npos) << t;
  EXPECT_NE(t.find("refused: product 'openvpn'"), std::string::npos) << t;
  EXPECT_NE(t.find("* contended: more nodes than CPUs"), std::string::npos) << t;
  // The report's section: every row in its table, contended sizes said so, a line per
  // product with more than one converged size (here none: no charts).
  KindSection k = scale_section({ok, slow, refused}, 2);
  ASSERT_EQ(k.table.size(), 4u);
  EXPECT_EQ(k.table[2][1], "100 (contended)");
  EXPECT_EQ(k.table[2][4], "9000/9900");
  EXPECT_EQ(k.table[2][2], "-");
  EXPECT_TRUE(k.plots.empty());
  ScaleRow bigger = ok;
  bigger.nodes = 25;
  bigger.contended = true;
  k = scale_section({ok, bigger}, 2);
  ASSERT_EQ(k.plots.size(), 3u);
  EXPECT_EQ(k.plots[0].first, "scale-converge.svg");
  EXPECT_NE(k.plots[0].second.find("nebula"), std::string::npos);
  EXPECT_EQ(scale_csv_header().substr(0, 30), "product,nodes,contended,conver");
  EXPECT_EQ(scale_csv_line(refused).substr(0, 17), "openvpn,5,0,-1.00");
}

// A mesh is ready when one sweep found every ordered pair answering, within the file's
// converge_timeout, and the row carries that sweep's pairs (seen failing: a field added to
// the session's context shifted the timeout into another, the pairwise pings ran instead,
// and a 25-node row said 0 pairs of 0 answered, without a reason).
TEST(Scale, AMeshIsReadyWhenOneSweepFoundEveryPairWithinTheFilesTimeout) {
  auto spec = parse_scale_text(
      std::string(kLab) + "[scale]\nnodes = [3]\nproducts = [\"wireguard-go\"]\nconverge_timeout = \"42s\"\n",
      "s.toml");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  auto topo = parse_topology_text(mesh_topology_text(*spec, 3), "mesh.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  PlanOptions po;
  po.run_id = "20261207-000000-abcd";
  po.tag = "abcd";
  auto plan = make_plan(*topo, po);
  ASSERT_TRUE(plan.ok()) << plan.error().format();
  auto product = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go");
  ASSERT_TRUE(product.ok()) << product.error().format();
  std::vector<std::string> calls;
  ScaleRound round;
  round.plan = &*plan;
  round.run_dir = make_temp_dir("mesh-scale");
  for (const auto& n : plan->nodes) round.keys[n.name] = generate_x25519();
  round.psk = std::string(64, '0');
  round.converge_timeout_s = spec->converge_timeout_s;
  round.build_nodes = [&](const Plan&, const std::string&, int) -> Result<std::unique_ptr<NodeRuntime>> {
    auto fake = std::make_unique<FakeRuntime>();
    fake->daemons = {"wireguard-go"};
    fake->also_to = &calls;
    return std::unique_ptr<NodeRuntime>(std::move(fake));
  };
  bool interrupted = false;
  auto row = measure_mesh(round, *product, &interrupted);
  ASSERT_TRUE(row.ok()) << row.error().format();
  std::vector<std::string> sweeps, pings;
  for (const auto& c : calls) {
    if (c.rfind("sweep_mesh", 0) == 0) sweeps.push_back(c);
    if (c.rfind("ping", 0) == 0 && c.find(" df ") == std::string::npos) pings.push_back(c);
  }
  EXPECT_EQ(sweeps, std::vector<std::string>{"sweep_mesh 3 nodes within 42 s"});
  EXPECT_TRUE(pings.empty()) << "readiness by one sweep, not pair by pair: " << pings.front();
  EXPECT_EQ(row->pairs, 6u);
  EXPECT_EQ(row->answered, 6u);
  EXPECT_DOUBLE_EQ(row->sweep_s, 0.5);
  std::filesystem::remove_all(round.run_dir);
}
