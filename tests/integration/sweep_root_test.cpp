// A sweep on real namespaces: a test swept over streams measures every point for every
// product in the same interleaved rounds, each point's rows carry its sweep and point, the
// iperf3 of a point really ran that many streams (read back from its own JSON), and the
// summary has a cell per product and point.
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/record/results_csv.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

const char* kSweptQuick = R"([lab]
name = "swp"
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
load_cpus = [1]
[[link]]
name = "lan"
nodes = ["a", "b"]
subnet = "192.168.77.0/24"
[bench]
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
    auto raw = nlohmann::json::parse(read_file_text(run.run_dir + "/raw/" + r.product + "/" + r.test + "/sample-" + std::to_string(r.sample) + ".json"),
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

}  // namespace
