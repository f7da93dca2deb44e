// A sweep on real namespaces: a test swept over streams measures every point for every
// product in the same interleaved rounds, each point's rows carry its sweep and point, the
// iperf3 of a point really ran that many streams (read back from its own JSON), and the
// summary has a cell per product and point.
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/record/results_csv.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

// quick.toml's two pinned nodes, its test swept over 1 and 4 streams.
const std::string kSweptQuick = two_pinned_nodes("swp") + R"([bench]
products = ["baseline"]
[[bench.test]]
name = "bulk"
client = "a"
server = "b"
sweep = { streams = [1, 4] }
)";

TEST(Sweep, EveryPointOfEveryProductIsMeasuredWithItsOwnStreams) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string topology = make_temp_dir("sweep-topo") + "/swept.toml";
  std::ofstream(topology) << kSweptQuick;
  ShortRun run = short_run({"baseline", "wireguard-go"}, VPNLAB_PRODUCTS_DIR, 2, topology);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 8u) << "2 products x 2 points x 2 samples";
  for (const auto& r : run.report->rows) {
    EXPECT_TRUE(r.valid) << r.product << " " << r.test << ": " << r.reason;
    EXPECT_EQ(r.sweep_of, "bulk");
    EXPECT_EQ(r.point, "streams=" + std::to_string(r.streams)) << r.test;
    EXPECT_EQ(r.test, "bulk-" + std::to_string(r.streams));
    // What iperf3 itself says it ran: one entry per stream in its end summary.
    auto raw = nlohmann::json::parse(read_file_text(run.run_dir + "/raw/" + r.product + "/" + r.test + "/sample-" +
                                                    std::to_string(r.sample) + ".json"),
                                     nullptr, false);
    ASSERT_TRUE(raw.is_object()) << r.product << " " << r.test;
    EXPECT_EQ(raw["end"]["streams"].size(), static_cast<size_t>(r.streams)) << r.product << " " << r.test;
  }
  auto summary = nlohmann::json::parse(read_file_text(run.run_dir + "/summary.json"), nullptr, false);
  ASSERT_TRUE(summary.contains("sweeps")) << summary.dump(2);
  const auto& sweep = summary["sweeps"][0];
  EXPECT_EQ(sweep["test"], "bulk");
  EXPECT_EQ(sweep["points"], nlohmann::json({"streams=1", "streams=4"}));
  ASSERT_EQ(sweep["products"].size(), 2u);
  for (const auto& p : sweep["products"])
    for (const auto& cell : p["cells"]) EXPECT_EQ(cell["n"], 2) << p["product"] << " " << cell["point"];
  EXPECT_NE(read_file_text(run.run_dir + "/summary.txt").find("sweep 'bulk': Gbit/s"), std::string::npos);
}

// A 2 x 2 sweep, streams in the test and the underlay MTU in [bench]: every product at
// every point, 8 valid cells, and the links really had each point's MTU: the baseline's
// TCP MSS, which iperf3 reads from the kernel (TCP_MAXSEG) for its connection across the
// link, is the point's MTU less 52 (IPv4, TCP and its timestamps).
TEST(Sweep, ABenchSweepRebuildsTheLabAtEachUnderlayMtu) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string topology = make_temp_dir("sweep-topo") + "/lab-swept.toml";
  std::ofstream(topology) << two_pinned_nodes("swl") << R"([bench]
products = ["baseline"]
sweep = { underlay_mtu = [1500, 9000] }
[[bench.test]]
name = "bulk"
client = "a"
server = "b"
sweep = { streams = [1, 2] }
)";
  ShortRun run = short_run({"baseline", "wireguard-go"}, VPNLAB_PRODUCTS_DIR, 1, topology);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 8u) << "2 products x 2 streams x 2 MTUs";
  std::set<std::string> cells;
  for (const auto& r : run.report->rows) {
    EXPECT_TRUE(r.valid) << r.product << " " << r.test << ": " << r.reason;
    cells.insert(r.product + " " + r.point);
    const int mtu = r.point.find("underlay_mtu=9000") != std::string::npos ? 9000 : 1500;
    auto raw = nlohmann::json::parse(
        read_file_text(run.run_dir + "/raw/" + r.product + "/" + r.test + "/sample-1.json"), nullptr, false);
    ASSERT_TRUE(raw.is_object()) << r.product << " " << r.test;
    if (r.product == "baseline")
      EXPECT_EQ(raw["start"]["tcp_mss_default"], mtu - 52) << r.test << ": the link's MTU at this point";
    else
      EXPECT_EQ(raw["start"]["tcp_mss_default"], 1400 - 52)
          << r.test << ": the overlay's MTU, the file's at every point";
  }
  EXPECT_EQ(cells.size(), 8u);
  auto env = nlohmann::json::parse(read_file_text(run.run_dir + "/environment.json"), nullptr, false);
  EXPECT_EQ(env["lab_points"].size(), 2u) << env.dump(2);
}

// A rate sweep: the shaped link's token bucket is set to each point's rate (the lab is
// rebuilt between points), so the baseline's TCP transfer stays under each rate and the
// faster point is faster; the rows carry the rate as their point.
TEST(Sweep, ARateSweepShapesTheLinkAtEachPoint) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string topology = make_temp_dir("sweep-topo") + "/rate-swept.toml";
  std::ofstream(topology) << two_pinned_nodes("swr") << R"(rate = "1G"
[bench]
products = ["baseline"]
sweep = { rate = ["100M", "400M"] }
[[bench.test]]
name = "bulk"
client = "a"
server = "b"
)";
  ShortRun run = short_run({"baseline"}, VPNLAB_PRODUCTS_DIR, 2, topology);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 4u) << "2 rates x 2 samples";
  for (const auto& r : run.report->rows) {
    ASSERT_EQ(r.status, "ok") << r.test << ": " << r.reason;
    const double rate_gbit = r.point == "rate=100m" ? 0.1 : 0.4;
    EXPECT_EQ(r.test, r.point == "rate=100m" ? "bulk-100m" : "bulk-400m");
    // Under the bucket's rate, and not far under it: the link, not the machine, set the pace.
    EXPECT_LT(r.gbps, rate_gbit * 1.02) << r.test;
    EXPECT_GT(r.gbps, rate_gbit * 0.7) << r.test;
  }
}

}  // namespace
