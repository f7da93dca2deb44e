// Root: the answers a quick comparison needs, from real runs. Two products on a 3-node
// bridge compared round by round (`run --vs`, `compare`), with the default pinning
// placing each test's sender and receiver on different CPUs; and a shaped link's share
// and header ceiling per product.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

TEST(CompareRun, ThreeNodesWireguardGoAgainstNebula) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  VPNLAB_REQUIRE_PROGRAM("nebula");
  std::string out = make_temp_dir("compare") + "/out";
  auto run =
      vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/bridge3.toml", "--product", "baseline", "--product", "wireguard-go",
                  "--product", "nebula", "--samples", "3", "--duration", "1s", "--out", out, "--vs", "wireguard-go"});
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("vs wireguard-go (each product over wireguard-go in the same rounds"), std::string::npos)
      << run.out;
  EXPECT_TRUE(std::regex_search(run.out, std::regex(R"(\nnebula +a-to-c +\d+\.\d{3} \(\d+\.\d{3}-\d+\.\d{3}\) )")))
      << run.out;
  std::string dir = run_dir_in(out);
  // bridge3: a -> c and c -> b; c gets a CPU of its own, so no test's ends share one.
  auto env = nlohmann::json::parse(read_file(dir + "/environment.json"));
  if (sysconf(_SC_NPROCESSORS_CONF) >= 2) {
    EXPECT_NE(env["pinning"]["a"]["cpus"], env["pinning"]["c"]["cpus"]) << env["pinning"].dump();
    EXPECT_NE(env["pinning"]["b"]["cpus"], env["pinning"]["c"]["cpus"]) << env["pinning"].dump();
    EXPECT_FALSE(env.contains("pinning_warnings")) << env["pinning_warnings"].dump();
  }
  // Both directions, each with its interval, per test and metric.
  auto text = vpnlab_cli({"compare", dir, "wireguard-go", "nebula"});
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* test : {"a-to-c", "c-to-b-mss"})
    EXPECT_TRUE(std::regex_search(
        text.out,
        std::regex(std::string(test) +
                   R"( +Gbit/s +3 \d+\.\d{3} \(\d+\.\d{3}-\d+\.\d{3}\) +\d+\.\d{3} \(\d+\.\d{3}-\d+\.\d{3}\) )")))
        << text.out;
  EXPECT_NE(text.out.find("CPU-s/Gbit"), std::string::npos) << text.out;
  auto json = vpnlab_cli({"compare", dir, "wireguard-go", "nebula", "--test", "a-to-c", "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["comparisons"].size(), 5u) << json.out;  // Gbit/s, CPU-s/Gbit, RSS, p99, the p99 the load adds
  std::vector<std::string> metrics;
  for (const auto& c : j["comparisons"]) metrics.push_back(c["metric"].get<std::string>());
  EXPECT_NE(std::find(metrics.begin(), metrics.end(), "added_p99_ms"), metrics.end()) << json.out;
  for (const auto& c : j["comparisons"]) {
    EXPECT_EQ(c["test"], "a-to-c");
    EXPECT_LE(c["ci_low"].template get<double>(), c["ratio_b_over_a"].template get<double>()) << c.dump();
    EXPECT_GE(c["ci_high"].template get<double>(), c["ratio_b_over_a"].template get<double>()) << c.dump();
    EXPECT_NEAR(c["ratio_a_over_b"].template get<double>() * c["ratio_b_over_a"].template get<double>(), 1.0, 1e-9);
  }
  auto missing = vpnlab_cli({"compare", dir, "wireguard-go", "tinc"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("has no rows of product 'tinc'"), std::string::npos) << missing.err;
  EXPECT_NE(read_file(dir + "/report.html").find("Product vs product: each over wireguard-go"), std::string::npos);
  // The table ends with the conclusion, per test, of the two tunnels (never the baseline).
  EXPECT_TRUE(std::regex_search(
      run.out,
      std::regex(
          R"(conclusion \(tunnels only; [^\n]*\n  a-to-c +fastest: +(nebula|wireguard-go), \d+\.\d{3}x (wireguard-go|nebula) \()")))
      << run.out;
  // Without --vs the report's reference is the first tunnel, not the baseline that ran first.
  auto report = vpnlab_cli({"report", dir});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(read_file(dir + "/report.html").find("Product vs product: each over wireguard-go"), std::string::npos);
  EXPECT_EQ(read_file(dir + "/report.html").find("each over baseline"), std::string::npos);
}

TEST(CompareRun, ShapedLinkShowsShareAndHeaderCeiling) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string scratch = make_temp_dir("shaped");
  std::string text = read_file(VPNLAB_TOPOLOGIES "/quick.toml");
  text.replace(text.find("mtu = 1500"), 10, "mtu = 1500\nrate = \"200mbit\"");
  std::ofstream(scratch + "/shaped.toml") << text;
  auto plan = vpnlab_cli({"plan", scratch + "/shaped.toml"});
  EXPECT_NE(plan.out.find("rate 200 Mbit/s (TBF: burst 100000 B, queue limit 500000 B)"), std::string::npos)
      << plan.out;
  auto run =
      vpnlab_cli({"run", scratch + "/shaped.toml", "--samples", "2", "--duration", "2s", "--out", scratch + "/out"});
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("shaped link 'lan': 200.0 Mbit/s (TBF: burst 100000 B, queue limit 500000 B"),
            std::string::npos)
      << run.out;
  // baseline at MTU 1500: 200 * 1448 / 1514 = 191.3; wireguard-go at 1400 + 60: 200 * 1348 / 1474 = 182.9.
  EXPECT_NE(run.out.find("191.3 (MTU 1500, +0 B)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("182.9 (MTU 1400, +60 B)"), std::string::npos) << run.out;
  // The shaper holds: the baseline gets close to its ceiling, never far above it.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.out, m, std::regex(R"(\nbaseline +a-to-b +(\d+\.\d) +\d+\.\d %)"))) << run.out;
  EXPECT_LT(std::stod(m[1]), 191.3 * 1.05) << run.out;
  EXPECT_GT(std::stod(m[1]), 191.3 * 0.7) << run.out;
  auto env = nlohmann::json::parse(read_file(run_dir_in(scratch + "/out") + "/environment.json"));
  EXPECT_EQ(env["shaped_links"][0]["limit_bytes"], 500000) << env["shaped_links"].dump();
  EXPECT_NE(read_file(run_dir_in(scratch + "/out") + "/report.html").find("Shaped links: share of the rate"),
            std::string::npos);
}
