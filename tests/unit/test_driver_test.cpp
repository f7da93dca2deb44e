// A test kind is its driver: a kind defined here, in this file only (no source of vpnlab
// names it), parses in a topology, runs on a FakeRuntime through the runner, and its rows
// reach results.csv, the summary and its checks as the built-in kinds' do.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>

#include "../temp_paths.h"
#include "fake_runtime.h"
#include "lab/app/run_outputs.h"
#include "lab/base/fs_util.h"
#include "lab/model/topology.h"
#include "lab/record/metrics.h"
#include "lab/record/results_csv.h"
#include "lab/results/compare.h"
#include "lab/results/summary.h"
#include "lab/run/runner.h"
#include "lab/run/test_driver.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

// A program only the FakeRuntime "runs" (scripts/check-programs.sh looks for argv literals).
constexpr char kKnocker[] = "knocker";

// "knock": a client sends 1000 knocks of 100 bytes each way; no server (the other end
// answers by itself, as the kernel does echoes).
class KnockDriver : public TestDriver {
 public:
  std::string kind() const override { return "knock"; }
  std::vector<std::string> server_argv(const SampleContext&, const TrafficProcess&) const override { return {}; }
  bool with_echoes() const override { return false; }
  void shape_row(const Plan&, const TestSpec&, SampleRow* row) const override {
    row->kind = kind();
    row->streams = 1;
    row->payload_bytes = 100;
  }
  std::vector<SpawnSpec> client_specs(const SampleContext& c, const std::string& label,
                                      const std::vector<TrafficProcess>& procs, double) const override {
    SpawnSpec s;
    s.argv = {kKnocker, c.plan->target_address(*c.test, 0, c.session->tunnel()).str(),
              std::to_string(procs.front().port)};
    s.stdout_path = c.raw_dir + "/" + label + ".knock";
    return {s};
  }
  Status merge(const SampleContext& c, const SampleOutput& out, SampleRow* row, ExpectedBytes* expect,
               uint64_t* delivered) const override {
    row->tps = 1000 / out.duration_s;
    row->tx_p50_ms = 0.25;
    row->tx_p90_ms = row->tx_p99_ms = row->tx_p999_ms = 0.5;
    row->retransmits = -1;
    (*expect)[c.test->spec.client] = {0, 0};  // a fake machine's counters stay at zero
    *delivered += 0;
    return ok_status();
  }
};

TestKindTraits knock_traits() {
  TestKindTraits t;
  t.hint = "\"knock\" (a knock and its answer)";
  t.transactions = true;
  t.first_port = 6100;
  t.no_size = "a knock is 100 bytes";
  t.no_iperf_keys = "drop it: a knock test knocks";
  t.counted = "knocks";
  t.one = "knock";
  t.method = "knocker: a knock, its answer.";
  return t;
}

// topologies/quick.toml with one test of `kind` instead of its own, written to a file.
std::string quick_with_test(const std::string& name, const std::string& kind) {
  std::string text = read_file_text(VPNLAB_TOPOLOGIES "/quick.toml");
  text = text.substr(0, text.find("[[bench.test]]"));
  text += "[[bench.test]]\nname = \"" + name + "\"\nkind = \"" + kind + "\"\nclient = \"a\"\nserver = \"b\"\n";
  const std::string path = make_temp_dir(kind) + "/" + kind + ".toml";
  std::ofstream(path) << text;
  return path;
}

std::string knock_topology() { return quick_with_test("knocks", "knock"); }

}  // namespace

TEST(TestDriver, AKindUnknownToVpnlabIsRefusedUntilItsDriverIsAdded) {
  const std::string path = knock_topology();
  auto before = load_topology(path);
  if (!find_test_kind("knock")) {  // this test may run after the next one added it
    ASSERT_FALSE(before.ok());
    EXPECT_NE(before.error().message.find("unknown kind 'knock'"), std::string::npos) << before.error().message;
    EXPECT_NE(before.error().hint.find("\"latency\" (idle round trips)"), std::string::npos) << before.error().hint;
  }
  add_test_driver(std::make_unique<KnockDriver>(), knock_traits());
  auto after = load_topology(path);
  ASSERT_TRUE(after.ok()) << after.error().format();
  EXPECT_EQ(after->bench.tests.front().kind, "knock");
  EXPECT_NE(test_kind_choices().find("\"knock\" (a knock and its answer)"), std::string::npos);
}

TEST(TestDriver, ADriverAloneRunsItsKindThroughTheRunnerIntoTheRowsAndSummary) {
  add_test_driver(std::make_unique<KnockDriver>(), knock_traits());
  auto topo = load_topology(knock_topology());
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  PlanOptions po;
  po.run_id = "20261202-000000-knock";
  po.products = {"baseline"};
  po.samples = 2;
  po.duration_s = 1;
  Plan plan = make_plan(*topo, po).value();
  plan.warmup_s = 0;
  EXPECT_NE(describe_plan(plan).find("knocks"), std::string::npos);

  setenv("VPNLAB_STATE_DIR", make_temp_dir("state").c_str(), 1);
  std::vector<std::string> calls;
  RunOptions ro;
  ro.run_dir = make_temp_dir("knock-run") + "/" + plan.run_id;
  ro.products_dir = VPNLAB_PRODUCTS_DIR;
  ro.build_nodes = [&calls](const Plan&, const std::string&, int) -> Result<std::unique_ptr<NodeRuntime>> {
    auto fake = std::make_unique<FakeRuntime>();
    fake->also_to = &calls;
    return std::unique_ptr<NodeRuntime>(std::move(fake));
  };
  auto report = run_bench(plan, ro);
  ASSERT_TRUE(report.ok()) << report.error().format();
  int knockers = 0;
  for (const auto& c : calls)
    knockers += c.rfind("spawn a knocker ", 0) == 0 && c.size() > 5 && c.substr(c.size() - 5) == " 6100";
  EXPECT_EQ(knockers, 2) << "one client per sample, at the driver's port; no server";

  auto rows = read_results_csv(ro.run_dir + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_EQ(rows->size(), 2u);
  for (const auto& r : *rows) {
    EXPECT_EQ(r.kind, "knock");
    EXPECT_EQ(r.payload_bytes, 100) << "the driver shapes its rows";
    EXPECT_TRUE(r.valid) << r.reason;
    EXPECT_DOUBLE_EQ(r.tps, 1000);
    EXPECT_TRUE(r.is_transactions());
    EXPECT_EQ(headline_figure(r), "1000.0 knocks/s, p99 0.500 ms");
  }
  RunOutputs out = write_run_outputs(plan, ro.run_dir, *report);
  EXPECT_NE(out.summary.find("knock"), std::string::npos) << out.summary;
  EXPECT_NE(out.summary.find("1000.0"), std::string::npos) << out.summary;
}

// rr's server serves until it is stopped: waiting for it to exit by itself cost every rr
// sample (and its warm-up) 5 s of nothing, a third of a 2-product firewall-cost run.
TEST(TestDriver, AServerThatServesUntilStoppedIsStoppedWhenItsClientEndsNotWaitedFor) {
  auto topo = load_topology(quick_with_test("rr", "rr"));
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  PlanOptions po;
  po.run_id = "20261207-000000-rrwait";
  po.products = {"baseline"};
  po.samples = 2;
  po.duration_s = 1;
  Plan plan = make_plan(*topo, po).value();
  setenv("VPNLAB_STATE_DIR", make_temp_dir("state").c_str(), 1);
  RunOptions ro;
  ro.run_dir = make_temp_dir("rr-wait-run") + "/" + plan.run_id;
  ro.products_dir = VPNLAB_PRODUCTS_DIR;
  std::vector<std::shared_ptr<FakeProcState>> started;
  ro.build_nodes = [&started](const Plan&, const std::string&, int) -> Result<std::unique_ptr<NodeRuntime>> {
    auto fake = std::make_unique<FakeRuntime>();
    fake->daemons = {"vpnlab-crr rr-server"};
    fake->started_also = &started;
    return std::unique_ptr<NodeRuntime>(std::move(fake));
  };
  auto report = run_bench(plan, ro);
  ASSERT_TRUE(report.ok()) << report.error().format();
  std::vector<int> waits;
  for (const auto& p : started)
    if (p->name.ends_with("vpnlab-crr")) waits.push_back(p->waited_ms);
  ASSERT_GE(waits.size(), 6u) << "a server and a client for the warm-up and each of 2 samples";
  for (int w : waits) EXPECT_EQ(w, 0) << "an rr process was waited for while it ran";
}

// A figure is one entry of the metric table: a results.csv column, a summary.json key for
// every product and test, and (when judged) a verdict of `compare` and `diff`.
TEST(MetricTable, EveryFigureIsACsvColumnAndASummaryKeyAndTheJudgedOnesAreCompared) {
  std::vector<SampleRow> rows(2);
  for (int i = 0; i < 2; ++i) {
    rows[i].run_id = "r";
    rows[i].product = "baseline";
    rows[i].test = "t";
    rows[i].sample = i + 1;
    rows[i].status = "ok";
    rows[i].valid = true;
    rows[i].gbps = 10 + i;
    rows[i].bringup_s = 0.5;
  }
  const nlohmann::json j = summary_json(rows);
  const auto& header = results_csv_header();
  std::vector<std::string> judged;
  for (const auto& m : metric_columns()) {
    EXPECT_NE(std::find(header.begin(), header.end(), m.key), header.end()) << m.key << " is no results.csv column";
    EXPECT_TRUE(j["results"][0].contains(m.key)) << m.key << " is not in summary.json";
    if (m.judged) judged.push_back(m.key);
  }
  EXPECT_EQ(j["results"][0]["bringup_s"]["n"], 2);
  EXPECT_EQ(j["results"][0]["daemon_rss_kb"]["n"], 0) << "a row without a daemon did not measure its RSS";
  std::vector<std::string> compared;
  for (const auto& m : cost_metrics()) compared.push_back(m.key);
  EXPECT_EQ(compared, judged);
  EXPECT_EQ(throughput_metric().key, "gbps");
}
