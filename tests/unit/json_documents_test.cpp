// The --json documents made from a run's files, against golden files in tests/data/json/:
// compare and run --json of the golden run, and history's three documents (runs, a series,
// a check) of a scratch history holding the golden runs. Their keys are the schemas' too
// (ctest package.json_schemas validates real ones).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../golden.h"
#include "../temp_paths.h"
#include "lab/app/run_compare.h"
#include "lab/cli/json_output.h"
#include "lab/results/summary.h"

namespace vpnlab {
namespace {

namespace fs = std::filesystem;

const std::string kGoldenRun = VPNLAB_TEST_DATA "/run-golden";
const std::string kGoldenKinds = VPNLAB_TEST_DATA "/run-golden-kinds";

TEST(Json, CompareOfTheGoldenRunMatchesTheGoldenFile) {
  auto c = compare_in_run(kGoldenRun, "baseline", "wireguard-go", "");
  ASSERT_TRUE(c.ok()) << c.error().format();
  expect_golden("compare.json", compare_json(*c));
}

// run --json reads the run's environment.json and summary.json by the path it is given: a
// relative one here, so the document is the same on every machine.
TEST(Json, RunOfTheGoldenRunMatchesTheGoldenFile) {
  const std::string dir = make_temp_dir("json-run");
  fs::copy(kGoldenRun, dir + "/run-golden", fs::copy_options::recursive);
  auto rows = read_results_csv(dir + "/run-golden/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_TRUE(write_file(dir + "/run-golden/summary.json", summary_json(*rows).dump(2) + "\n", 0644).ok());
  RunReport report;
  report.rows = *rows;
  report.products = {
      ProductOutcome{.product = "baseline", .started = true},
      ProductOutcome{.product = "wireguard-go", .started = true, .leftovers = {"a process: wireguard-go (pid 4242)"}}};
  RunOutputs outputs;
  outputs.completeness = completeness(*rows, {"baseline", "wireguard-go"}, {"a-to-b"});
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  nlohmann::json doc = run_json("run-golden", 0, report, outputs);
  fs::current_path(before);
  EXPECT_EQ(doc["summary"]["results"].size(), 2u);
  EXPECT_TRUE(doc["sampling"].is_null()) << "a fixed count: no sampling outcome";
  expect_golden("run.json", doc);
}

TEST(Json, HistoryDocumentsMatchTheirGoldenFiles) {
  const std::string dir = make_temp_dir("json-history");
  auto store = HistoryStore::open(dir + "/history.sqlite");
  ASSERT_TRUE(store.ok()) << store.error().format();
  for (const auto& run : {kGoldenRun, kGoldenKinds}) ASSERT_TRUE(store->add_run(run).ok()) << run;
  auto runs = store->runs();
  ASSERT_TRUE(runs.ok());
  expect_golden("history-runs.json", history_runs_json("history.sqlite", *runs));
  auto metric = history_metric("ratio");
  ASSERT_TRUE(metric.ok());
  auto trends = load_trends(*store, TrendQuery{"wireguard-go", "", metric->key, false}, *metric);
  ASSERT_TRUE(trends.ok()) << trends.error().format();
  ASSERT_FALSE(trends->empty());
  expect_golden("history-series.json", history_series_json("history.sqlite", metric->key, false, *trends));
  CheckQuery q{"wireguard-go", "", metric->key, 0.05};
  CheckOutcome o = check_newest(*trends, q, *metric);
  EXPECT_EQ(o.exit_code, 4) << "one run per environment: nothing to judge by";
  expect_golden("history-check.json", history_check_json("history.sqlite", metric->key, q.threshold, o));
}

}  // namespace
}  // namespace vpnlab
