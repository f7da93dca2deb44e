// Golden files: report.md and the plots of a recorded run directory (tests/data/
// run-golden: results.csv, environment.json, audit.json and the raw iperf3 JSON of a real
// quick.toml run). Any change to the report shows up here; after a deliberate one,
// regenerate with VPNLAB_UPDATE_GOLDEN=1 and review the difference.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "lab/base/fs_util.h"
#include "lab/results/latency_cdf.h"
#include "lab/results/load_latency_table.h"
#include "lab/results/report.h"
#include "lab/results/rss_series.h"
#include "lab/results/svg.h"
#include "lab/results/udp_table.h"
#include "lab/run/rss_sampler.h"

using namespace vpnlab;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) { return read_file_text(p.string()); }

std::string copy_of_golden_run() {
  char tmpl[] = "/tmp/vpnlab-golden-XXXXXX";
  fs::path dir = mkdtemp(tmpl);
  fs::path src = fs::path(VPNLAB_TEST_DATA) / "run-golden";
  for (const char* f : {"results.csv", "environment.json", "audit.json"}) fs::copy_file(src / f, dir / f);
  fs::copy(src / "raw", dir / "raw", fs::copy_options::recursive);
  return dir.string();
}

}  // namespace

TEST(Report, MarkdownAndPlotsMatchTheGoldenFiles) {
  std::string run = copy_of_golden_run();
  ASSERT_TRUE(write_report(run).ok());
  fs::path expected = fs::path(VPNLAB_TEST_DATA) / "report-golden";
  std::vector<std::string> files = {"report.md",
                                    "plots/a-to-b-throughput.svg",
                                    "plots/a-to-b-over-time.svg",
                                    "plots/a-to-b-cpu.svg",
                                    "plots/a-to-b-samples.svg",
                                    "plots/a-to-b-cpu-kinds.svg",
                                    "plots/a-to-b-vs-baseline.svg"};
  if (getenv("VPNLAB_UPDATE_GOLDEN")) {
    for (const auto& f : files) {
      fs::create_directories((expected / f).parent_path());
      fs::copy_file(fs::path(run) / f, expected / f, fs::copy_options::overwrite_existing);
    }
    GTEST_SKIP() << "golden files rewritten in " << expected;
  }
  for (const auto& f : files)
    EXPECT_EQ(slurp(fs::path(run) / f), slurp(expected / f)) << f << " differs from " << (expected / f);
  // The HTML is self-contained: the plots inline, nothing fetched.
  std::string html = slurp(fs::path(run) / "report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  fs::remove_all(run);
}

TEST(Report, ThroughputOverTimeSumsTheProcessesOfASample) {
  std::string run = copy_of_golden_run();
  auto series = throughput_over_time(run, "baseline", "a-to-b", 1);
  ASSERT_EQ(series.size(), 2u);  // a 2-second sample, one interval per second
  EXPECT_NEAR(series[0].first, 1.0, 0.05);
  EXPECT_GT(series[0].second, 1.0);
  EXPECT_TRUE(throughput_over_time(run, "baseline", "a-to-b", 9).empty());
  fs::remove_all(run);
}

TEST(Svg, EscapesTextAndDrawsEveryBar) {
  std::string svg = svg_bar_chart("a<b & \"c\"", "Gbit/s", {{"x<1>", 2.0, 1.5, 2.5}, {"y", 0.5, 0.4, 0.6}});
  EXPECT_NE(svg.find("a&lt;b &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_NE(svg.find("x&lt;1&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("x<1>"), std::string::npos);
  size_t rects = 0;
  for (size_t at = svg.find("<rect x="); at != std::string::npos; at = svg.find("<rect x=", at + 1)) ++rects;
  EXPECT_EQ(rects, 2u);
  EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
}

TEST(Svg, ManySeriesWrapTheirLegendAndStayDistinguishable) {
  std::vector<Series> series;
  for (int i = 0; i < 12; ++i) series.push_back({"product-number-" + std::to_string(i), {{0, 1}, {2.001, 1.0 + i}}});
  std::string svg = svg_line_chart("t", "seconds", "Gbit/s", series);
  EXPECT_NE(svg.find("role=\"img\""), std::string::npos);
  EXPECT_NE(svg.find("<title>t</title>"), std::string::npos);
  // 12 entries of 143 px, 3 to a 550 px row: 4 rows, the canvas 3 rows of 16 px taller.
  EXPECT_NE(svg.find("height=\"408.0\""), std::string::npos) << svg.substr(0, 200);
  EXPECT_NE(svg.find(">product-number-11</text>"), std::string::npos);
  // The 11th and 12th series reuse colours 1 and 2, dashed.
  EXPECT_NE(svg.find("stroke=\"#4e79a7\" stroke-width=\"2\" stroke-dasharray=\"6 3\""), std::string::npos);
  // A 2 s sample ending at 2.001 s keeps a 0-2 s axis.
  EXPECT_NE(svg.find(">2</text>\n<text x=\"345.0\" y=\"324.0\""), std::string::npos) << svg;
}

TEST(Report, LatencyCdfFromTheRawRoundTrips) {
  std::string run = copy_of_golden_run();
  fs::create_directories(run + "/raw/wireguard-go/a-to-b");
  std::ofstream(run + "/raw/wireguard-go/a-to-b/sample-1-rtt.txt") << "3.0\n1.0\nnot a number\n2.0\n";
  std::ofstream(run + "/raw/wireguard-go/a-to-b/sample-2-rtt.txt") << "4.0\n";
  auto rtts = pooled_rtts(run, "wireguard-go", "a-to-b", {1, 2, 3});
  EXPECT_EQ(rtts, (std::vector<double>{1, 2, 3, 4}));
  auto cdf = cdf_points(rtts, 1.0);
  ASSERT_EQ(cdf.size(), 200u);
  EXPECT_EQ(cdf.front(), (std::pair<double, double>{1.0, 0.005}));
  EXPECT_EQ(cdf[99].first, 2.0);  // the median
  EXPECT_NEAR(cdf.back().second, 1.0, 1e-9);
  EXPECT_EQ(cdf.back().first, 4.0);
  ASSERT_TRUE(write_report(run).ok());
  EXPECT_NE(slurp(fs::path(run) / "report.md").find("a-to-b-latency-cdf.svg"), std::string::npos);
  fs::remove_all(run);
}

// This very test process, as a node's daemon (only what the memory sampler asks).
class ThisProcess : public NodeProcess {
 public:
  const std::string& name() const override { return name_; }
  bool running() override { return true; }
  int exit_fd() const override { return -1; }
  bool wait_exit(int, int, bool*) override { return false; }
  int exit_status() const override { return -1; }
  bool stop(int) override { return false; }
  pid_t host_pid() const override { return getpid(); }

 private:
  std::string name_ = "self";
};

TEST(Report, MemoryOverTimeFromTheRawRecord) {
  // The sampler on this very process: evenly spaced points, a real resident set.
  ThisProcess self_a, self_b;
  RssSampler sampler({{"a", &self_a}, {"a", &self_b}}, 20);
  std::this_thread::sleep_for(std::chrono::milliseconds(110));
  auto points = sampler.stop();
  ASSERT_GE(points.size(), 4u);
  EXPECT_EQ(points[0].node, "a");  // one point per node and time: both pids summed
  EXPECT_GT(points[0].rss_kb, 1000);
  EXPECT_NEAR(points[2].t_s - points[1].t_s, 0.020, 0.015);
  EXPECT_EQ(read_proc_status(-1).rss_kb, 0);
  ProcStatus self = read_proc_status(getpid());
  EXPECT_GE(self.peak_rss_kb, self.rss_kb);
  EXPECT_GE(self.threads, 1);
  // Its CPU seconds (a relay's own cost) advance with work done: spin until the clock-tick
  // counter moves, a bounded number of times.
  EXPECT_EQ(read_proc_cpu_seconds(-1), 0);
  const double cpu_before = read_proc_cpu_seconds(getpid());
  volatile uint64_t spin = 0;
  for (int i = 0; i < 2000 && read_proc_cpu_seconds(getpid()) <= cpu_before; ++i)
    for (int k = 0; k < 1000000; ++k) spin = spin + k;
  EXPECT_GT(read_proc_cpu_seconds(getpid()), cpu_before);

  std::string run = copy_of_golden_run();
  fs::create_directories(run + "/raw/wireguard-go/a-to-b");
  std::ofstream(run + "/raw/wireguard-go/a-to-b/sample-1-rss.txt")
      << "0.000 a 10240\n0.000 b 20480\n0.100 a 30720\nbroken line\n0.100 b 1024\n";
  auto series = rss_over_time(run, "wireguard-go", "a-to-b", 1);
  EXPECT_EQ(series,
            (std::vector<std::pair<double, double>>{{0.0, 20.0}, {0.1, 30.0}}));  // the busiest node at each time
  EXPECT_EQ(RssSampler::format({{0.1, "a", 12}}), "0.100 a 12\n");
  ASSERT_TRUE(write_report(run).ok());
  EXPECT_NE(slurp(fs::path(run) / "report.md").find("a-to-b-memory.svg"), std::string::npos);
  fs::remove_all(run);
}

// A recorded run of topologies/latency.toml (rr, crr, idle latency, a UDP sweep with its
// zero-loss search): its sections and charts against golden files.
TEST(Report, TransactionAndUdpSweepChartsMatchTheGoldenFiles) {
  char tmpl[] = "/tmp/vpnlab-golden-XXXXXX";
  fs::path run = mkdtemp(tmpl);
  fs::path src = fs::path(VPNLAB_TEST_DATA) / "run-golden-kinds";
  for (const char* f : {"results.csv", "environment.json", "audit.json"}) fs::copy_file(src / f, run / f);
  fs::copy(src / "raw", run / "raw", fs::copy_options::recursive);
  ASSERT_TRUE(write_report(run.string()).ok());
  fs::path expected = fs::path(VPNLAB_TEST_DATA) / "report-golden-kinds";
  std::vector<std::string> files = {"report.md",
                                    "plots/rr-rate.svg",
                                    "plots/rr-percentiles.svg",
                                    "plots/crr-rate.svg",
                                    "plots/idle-percentiles.svg",
                                    "plots/idle-latency-cdf.svg",
                                    "plots/udp-pps-by-size.svg",
                                    "plots/udp-zero-loss.svg"};
  if (getenv("VPNLAB_UPDATE_GOLDEN")) {
    for (const auto& f : files) {
      fs::create_directories((expected / f).parent_path());
      fs::copy_file(run / f, expected / f, fs::copy_options::overwrite_existing);
    }
    fs::remove_all(run);
    GTEST_SKIP() << "golden files rewritten in " << expected;
  }
  for (const auto& f : files) EXPECT_EQ(slurp(run / f), slurp(expected / f)) << f << " differs from " << (expected / f);
  const std::string md = slurp(run / "report.md");
  EXPECT_NE(md.find("Test rr (rr)"), std::string::npos);
  EXPECT_NE(md.find("UDP udp: packets per second by payload size"), std::string::npos);
  EXPECT_EQ(md.find("Test rr\n"), std::string::npos) << "an rr test has no throughput section";
  fs::remove_all(run);
}

// The latency a load adds: valid throughput rows with idle probes only, a median with its
// interval per product x test, and nothing at all for a run that did not measure it.
TEST(LoadLatency, TheTableTakesValidRowsWithIdleProbesOnly) {
  auto row = [](const std::string& product, int sample, double idle, double p99, bool valid, int idle_probes) {
    SampleRow r;
    r.product = product, r.test = "a-to-b", r.sample = sample, r.status = "ok", r.valid = valid, r.gbps = 1;
    r.idle_probes = idle_probes, r.latency_probes = 200;
    r.idle_p50_ms = idle, r.latency_p50_ms = idle + 1, r.latency_p99_ms = p99, r.added_p99_ms = p99 - idle;
    return r;
  };
  std::vector<SampleRow> rows;
  for (int i = 1; i <= 6; ++i) rows.push_back(row("wireguard-go", i, 0.5, 20.5 + i, true, 20));
  rows.push_back(row("wireguard-go", 7, 0.5, 500, false, 20));  // invalid: left out
  rows.push_back(row("boringtun", 1, 0.2, 900, true, 0));       // no idle probes: left out
  EXPECT_EQ(load_latency_table({rows.back()}), "");
  const std::string t = load_latency_table(rows);
  EXPECT_NE(t.find("latency the load adds"), std::string::npos) << t;
  EXPECT_EQ(t.find("boringtun"), std::string::npos) << t;
  // added p99: 21..26 over the same sample's idle 0.5 -> 20.5..25.5, median of six 23.0
  // (the upper of the middle two, as describe() takes it), six samples: a 95 % interval.
  EXPECT_NE(t.find("wireguard-go         a-to-b"), std::string::npos) << t;
  const auto s = summarize_load_latency(rows);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].added_p99_ms.n, 6);
  EXPECT_NEAR(s[0].added_p99_ms.median, 23.0, 0.51) << t;
  EXPECT_GE(s[0].added_p99_ms.coverage, 0.95);
  EXPECT_NE(t.find("      6\n"), std::string::npos) << t;
}

// The UDP table's figures per product x test: every UDP row counted, only valid ones
// described, zero-loss figures only from rows whose search found a passing rate.
TEST(UdpTable, SummariesCountEveryRowAndDescribeTheValidOnes) {
  auto row = [](const std::string& product, int sample, double pps, double loss, double zero_loss_bps, bool valid) {
    SampleRow r;
    r.product = product, r.test = "u", r.protocol = "udp", r.sample = sample, r.status = "ok", r.valid = valid;
    r.payload_bytes = 1200, r.pps = pps, r.loss_pct = loss, r.offered_bps = 100e6, r.zero_loss_bps = zero_loss_bps;
    return r;
  };
  std::vector<SampleRow> rows = {row("wg", 1, 10000, 1, 0, true), row("wg", 2, 12000, 3, 80e6, true),
                                 row("wg", 3, 99000, 50, 0, false), row("nebula", 1, 8000, 2, 0, true)};
  SampleRow tcp = row("wg", 4, 1, 1, 0, true);
  tcp.protocol = "tcp";
  rows.push_back(tcp);
  const auto s = summarize_udp(rows);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].product, "wg");
  EXPECT_EQ(s[0].rows, 3);
  EXPECT_EQ(s[0].payload_bytes, 1200);
  EXPECT_EQ(s[0].kpps.n, 2);
  EXPECT_NEAR(s[0].kpps.median, 11, 1e-9) << "the median of two: their mean";
  EXPECT_NEAR(s[0].loss_pct.median, 2, 1e-9);
  EXPECT_NEAR(s[0].offered_mbps.median, 100, 1e-9);
  EXPECT_EQ(s[0].zero_loss_mbps.n, 1);
  EXPECT_NEAR(s[0].zero_loss_mbps.median, 80, 1e-9);
  EXPECT_NEAR(s[0].zero_loss_kpps.median, 12, 1e-9);
  EXPECT_EQ(s[1].product, "nebula");
  EXPECT_EQ(s[1].rows, 1);
  EXPECT_EQ(s[1].zero_loss_mbps.n, 0);
}
