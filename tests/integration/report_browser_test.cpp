// A report as a reader sees it: a 12-product run (two baselines, ten tunnels) reported by the
// real binary and laid out by a real browser (headless Chromium), which measures every text
// of every chart: none may overlap another or leave its chart. The screenshot is kept as
// the test's artifact (build/tests/artifacts/report-12-products.png) for a look by eye.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "browser_layout.h"
#include "lab/record/results_csv.h"
#include "root_test_support.h"

namespace vpnlab::testing {
namespace {

namespace fs = std::filesystem;

struct Product {
  const char* name;
  const char* cipher;
  double gbps;  // a-to-b; b-to-a a little less
};
// Throughputs as on this machine: the baselines far above the tunnels (0.90 vs 0.03-0.4).
const Product kProducts[] = {
    {"baseline", "none", 8.0},
    {"baseline-nooffload", "none", 0.90},
    {"wireguard-go", "ChaCha20-Poly1305", 0.28},
    {"wireguard-kernel", "ChaCha20", 0.41},
    {"boringtun", "ChaCha20-Poly1305", 0.22},
    {"nebula", "AES-256-GCM", 0.33},
    {"openvpn", "AES-128-GCM", 0.15},
    {"strongswan-kernel", "AES-128-GCM", 0.37},
    {"strongswan-libipsec", "AES-128-GCM", 0.07},
    {"tinc", "AES-128-CBC", 0.09},
    {"fastd", "Salsa20/12", 0.05},
    {"quicktun", "XSalsa20-Poly1305", 0.03},
};

// results.csv of 6 interleaved rounds x 2 tests x 12 products, and each sample's
// per-second iperf3 intervals (what the time-series charts draw).
std::string twelve_product_run() {
  const std::string run = make_temp_dir("browser") + "/20261202-120000-abcd";
  fs::create_directories(run);
  auto csv = ResultsCsv::create(run + "/results.csv");
  EXPECT_TRUE(csv) << (csv ? "" : csv.error().message);
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0, 0.04);
  for (int round = 1; round <= 6; ++round)
    for (const char* test : {"a-to-b", "b-to-a"})
      for (const Product& p : kProducts) {
        SampleRow r;
        r.run_id = "20261202-120000-abcd";
        r.timestamp = "2026-12-02T12:00:00Z";
        r.product = p.name;
        r.cipher = p.cipher;
        r.test = test;
        r.client = "a";
        r.server = "b";
        r.sample = round;
        r.duration_s = 4;
        r.valid = true;
        r.status = "ok";
        r.gbps = p.gbps * (std::string(test) == "b-to-a" ? 0.9 : 1) * std::exp(noise(rng));
        r.cpu_s = 1.2 * std::exp(noise(rng));
        r.cpu_user_s = 0.3, r.cpu_sys_s = 0.5, r.cpu_softirq_s = 0.4;
        r.cpu_s_per_gbit = r.cpu_s / (r.gbps * r.duration_s);
        r.daemon_rss_kb = std::string(p.cipher) == "none" ? 0 : 20000;
        r.latency_probes = 400;
        r.latency_p50_ms = 1.0 / p.gbps, r.latency_p99_ms = 3.0 / p.gbps;
        EXPECT_TRUE(csv->append(r));
        nlohmann::json intervals = nlohmann::json::array();
        for (int s = 0; s < 4; ++s)
          intervals.push_back(
              {{"sum", {{"start", s}, {"end", s + 1}, {"bits_per_second", 1e9 * r.gbps * std::exp(noise(rng))}}}});
        const std::string raw = run + "/raw/" + p.name + "/" + test;
        fs::create_directories(raw);
        std::ofstream(raw + "/sample-" + std::to_string(round) + ".json")
            << nlohmann::json{{"intervals", intervals}}.dump();
        if (std::string(p.cipher) == "none") continue;
        std::ofstream rss(raw + "/sample-" + std::to_string(round) + "-rss.txt");  // every 100 ms, growing a little
        for (int t = 0; t <= 40; ++t) rss << 0.1 * t << " a " << 20000 + 50 * t + 400 * round << "\n";
      }
  return run;
}

TEST(ReportInBrowser, TwelveProductsLabelsNeverOverlap) {
  VPNLAB_REQUIRE_PROGRAM("chromium-headless-shell");
  const std::string run = twelve_product_run();
  CliOutcome report = vpnlab_cli({"report", run});
  ASSERT_EQ(report.status, 0) << report.out << report.err;
  const std::string html = read_file(run + "/report.html");
  ASSERT_NE(html.find("Product vs product: each over wireguard-go"), std::string::npos)
      << "the first tunnel is the reference";
  const size_t conclusion = html.find("Conclusion"), warnings = html.find("Warnings");
  EXPECT_LT(conclusion, warnings) << "the report opens on the conclusion";
  // Issue 49.7: before it, the answer in one sentence with its number.
  const size_t answer = html.find("<p class=\"answer\">Answer (a-to-b): the fastest tunnel is wireguard-kernel at 0.");
  EXPECT_NE(answer, std::string::npos) << html.substr(0, 1500);
  EXPECT_LT(answer, conclusion);
  // Ratios are dots with whiskers on a log axis as wide below 1 as above: quicktun's 0.004 of
  // the baseline is a dot far left of the dashed 1, not a bar that starts at it.
  const std::string ratios = read_file(run + "/plots/a-to-b-vs-baseline.svg");
  size_t dots = 0;
  for (size_t k = ratios.find("<circle"); k != std::string::npos; k = ratios.find("<circle", k + 1)) ++dots;
  EXPECT_EQ(dots, 11u) << "one per product but the baseline itself";
  EXPECT_EQ(ratios.find("<rect x"), std::string::npos) << "no bars";
  EXPECT_NE(ratios.find(">0.001<"), std::string::npos);
  EXPECT_NE(ratios.find(">1000<"), std::string::npos) << "the axis is centred on 1";
  // Time: every valid sample a faint line (6 rounds x 12 products), the medians bold.
  const std::string over_time = read_file(run + "/plots/a-to-b-over-time.svg");
  size_t faint = 0;
  for (size_t k = over_time.find("stroke-opacity=\"0.3\""); k != std::string::npos;
       k = over_time.find("stroke-opacity=\"0.3\"", k + 1))
    ++faint;
  EXPECT_EQ(faint, 72u);
  EXPECT_TRUE(fs::exists(run + "/plots/a-to-b-memory.svg")) << "memory over time, the same way";
  auto verdict = browser_layout(html, run + "/report-checked.html");
  ASSERT_TRUE(verdict.is_object()) << "the layout check did not run";
  std::printf("browser: %d charts measured, %zu problems\n", verdict["charts"].get<int>(), verdict["problems"].size());
  EXPECT_GE(verdict["charts"].get<int>(), 16);
  for (const auto& p : verdict["problems"]) ADD_FAILURE() << p.get<std::string>();
  // The artifact: the page as it looks.
  const std::string artifacts = VPNLAB_ARTIFACTS;
  fs::create_directories(artifacts);
  std::vector<std::string> shot = kBrowser;
  shot.insert(shot.end(), {"--screenshot=" + artifacts + "/report-12-products.png", "file://" + run + "/report.html"});
  CliOutcome png = run_program(shot, {}, 120);
  EXPECT_EQ(png.status, 0) << png.err;
  EXPECT_GT(fs::file_size(artifacts + "/report-12-products.png"), 10000u);
}

}  // namespace
}  // namespace vpnlab::testing
