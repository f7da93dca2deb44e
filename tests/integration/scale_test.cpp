// Mesh scale and meshes of three or more nodes for real (root): real namespaces, real
// daemons, every node pair probed through the tunnel.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/record/results_csv.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

// scale.csv's rows as field maps (the reason, quoted, last).
std::vector<std::map<std::string, std::string>> scale_rows(const std::string& path) {
  std::ifstream in(path);
  std::string header, line;
  std::getline(in, header);
  std::vector<std::string> keys;
  for (std::istringstream h(header); std::getline(h, line, ',');) keys.push_back(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::map<std::string, std::string> row;
    std::istringstream f(line);
    std::string field;
    for (size_t i = 0; i + 1 < keys.size() && std::getline(f, field, ','); ++i) row[keys[i]] = field;
    std::getline(f, field);
    row[keys.back()] = field;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

// 25 Nebula nodes (one lighthouse, 24 others): every one of the 600 ordered pairs answers
// through the tunnel, and the row has its convergence time, RSS and threads per node and a
// valid throughput sample; nothing is left behind.
TEST(Scale, A25NodeNebulaMeshConvergesAndReportsItsCost) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("nebula");
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string dir = make_temp_dir("scale");
  std::ofstream(dir + "/s.toml") << "[lab]\nname = \"sc\"\n[scale]\nnodes = [25]\nproducts = [\"nebula\", "
                                    "\"openvpn\"]\nconverge_timeout = \"120s\"\nduration = \"2s\"\n";
  auto out = vpnlab_cli({"scale", dir + "/s.toml", "--out", dir + "/out"});
  EXPECT_EQ(out.status, 0) << out.out << out.err;
  auto rows = scale_rows(run_dir_in(dir + "/out") + "/scale.csv");
  ASSERT_EQ(rows.size(), 2u) << out.out;
  auto& r = rows[0];
  EXPECT_EQ(r["product"], "nebula");
  EXPECT_EQ(r["nodes"], "25");
  EXPECT_EQ(r["contended"], "1") << "25 nodes on this machine's CPUs";
  EXPECT_EQ(r["pairs"], "600");
  EXPECT_EQ(r["answered"], "600");
  EXPECT_GT(std::stod(r["converge_s"]), 0.0);
  EXPECT_GT(std::stod(r["rss_mb_median"]), 5.0) << "a nebula daemon holds megabytes";
  EXPECT_GE(std::stoi(r["threads_median"]), 2) << "Go runs several threads";
  EXPECT_EQ(r["sample_valid"], "1") << r["reason"];
  EXPECT_GT(std::stod(r["gbps"]), 0.0);
  EXPECT_EQ(r["reason"], "\"\"");
  // OpenVPN carries one peer per process: refused before anything was made.
  EXPECT_EQ(rows[1]["product"], "openvpn");
  EXPECT_EQ(
      rows[1]["reason"],
      "\"refused: product 'openvpn' does not carry a mesh overlay of 25 VPN nodes (it supports: p2p, site-to-site)\"");
  EXPECT_NE(out.out.find("* contended: more nodes than CPUs"), std::string::npos) << out.out;
  EXPECT_TRUE(list_namespaces("vpnlab-sc-").empty());
  EXPECT_TRUE(pids_named("nebula").empty());
  std::filesystem::remove_all(dir);
}

// tinc 1.0 on a bridge of three nodes: a valid row from a to c, through the tunnel.
TEST(Scale, TincOnAThreeNodeBridgeGivesAValidRow) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("tincd");
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string dir = make_temp_dir("tinc3");
  auto run =
      vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/bridge3.toml", "--product", "tinc", "--samples", "1", "--out", dir});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  auto rows = read_results_csv(run_dir_in(dir) + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_EQ(rows->size(), 2u);
  for (const auto& r : *rows) {
    EXPECT_TRUE(r.valid) << r.test << ": " << r.reason;
    EXPECT_GT(r.gbps, 0.0);
  }
  EXPECT_TRUE(pids_named("tincd").empty());
  std::filesystem::remove_all(dir);
}
