// Issue 50.3: an impaired link records what it achieved beside what it was asked for.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/base/stats.h"
#include "lab/model/plan.h"
#include "lab/model/topology.h"
#include "lab/record/achieved_text.h"
#include "lab/results/report.h"
#include "lab/run/achieved_path.h"
#include "lab/run/environment.h"
#include "lab/run/environment_record.h"

using namespace vpnlab;

namespace {

const char* kWan = R"([lab]
name = "wan"
[overlay]
subnet = "10.77.0.0/24"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
name = "lan"
nodes = ["a", "b", "c"]
subnet = "192.168.7.0/24"
[[link]]
name = "wan"
nodes = ["b", "c"]
subnet = "192.168.9.0/24"
profile = "mobile"
[bench]
products = ["baseline"]
[[bench.test]]
name = "t"
client = "b"
server = "c"
)";

LatencyProbe::Summary echoes(int sent, std::vector<double> rtts, int reordered = 0) {
  LatencyProbe::Summary s;
  s.sent = sent;
  s.answered = static_cast<int>(rtts.size());
  s.reordered = reordered;
  s.rtts_ms = std::move(rtts);
  return s;
}

}  // namespace

// The exact interval's coverage, by simulation: at least its level for every proportion
// (it is conservative by construction; this checks the beta quantiles are the right ones).
TEST(AchievedPath, TheLossIntervalCoversAtLeastItsLevel) {
  EXPECT_NEAR(proportion_interval(0, 10, 0.95).high, 0.3085, 1e-4) << "0 of 10: the rule of three's exact form";
  EXPECT_DOUBLE_EQ(proportion_interval(0, 10, 0.95).low, 0);
  EXPECT_NEAR(proportion_interval(5, 10, 0.95).low, 0.1871, 1e-4);
  EXPECT_NEAR(proportion_interval(5, 10, 0.95).high, 0.8129, 1e-4);
  EXPECT_DOUBLE_EQ(proportion_interval(10, 10, 0.95).high, 1);
  EXPECT_DOUBLE_EQ(proportion_interval(0, 0, 0.95).high, 1) << "no trials: nothing is known";
  std::mt19937_64 rng(50);
  for (double p : {0.001, 0.01, 0.02, 0.05, 0.3}) {
    for (int n : {50, 500}) {
      std::binomial_distribution<int> draw(n, p);
      const int runs = 4000;
      int covered = 0;
      for (int i = 0; i < runs; ++i) {
        const ProportionInterval in =
            proportion_interval(static_cast<size_t>(draw(rng)), static_cast<size_t>(n), kPathLossLevel);
        covered += in.low <= p && p <= in.high;
      }
      // 4000 runs: a true 99 % is seen above 98.5 % all but about one time in 1000.
      EXPECT_GE(covered / double(runs), 0.985) << "p " << p << ", n " << n;
    }
  }
}

TEST(AchievedPath, EachImpairedLinkIsEchoedFromItsFirstNodeToTheSecond) {
  auto topo = parse_topology_text(kWan, "wan.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  auto plan = make_plan(*topo, PlanOptions{"r", "t"});
  ASSERT_TRUE(plan.ok()) << plan.error().format();
  auto paths = impaired_paths(*plan);
  ASSERT_EQ(paths.size(), 1u) << "lan is not impaired; wan once, though it has two veths";
  EXPECT_EQ(paths[0].link, "wan");
  EXPECT_EQ(paths[0].from, "b");
  EXPECT_EQ(paths[0].to, "c");
  EXPECT_EQ(paths[0].to_address, plan->underlay_address("c", "wan"));
  EXPECT_DOUBLE_EQ(paths[0].delay_ms, 25);
  EXPECT_DOUBLE_EQ(paths[0].jitter_ms, 10);
  EXPECT_FALSE(paths[0].reorder);
  EXPECT_EQ(late_answer_ms(paths[0]), 500) << "at least half a second";
  ImpairedPath satellite{"sat", "a", "b", {}, 300, 5, 0.1, false};
  EXPECT_EQ(late_answer_ms(satellite), 3 * (600 + 20)) << "three round trips with their jitter";
}

TEST(AchievedPath, APathThatDidWhatWasAskedHasNoDepartures) {
  ImpairedPath wan{"wan", "a", "b", {}, 10, 1, 1, false};
  std::vector<double> rtts(490, 20.5);
  rtts[0] = 19.2;
  auto a = achieved_path(wan, echoes(500, rtts));
  EXPECT_DOUBLE_EQ(a.asked_rtt_ms, 20);
  EXPECT_NEAR(a.asked_loss_pct, 1.99, 1e-9) << "1 % each way: an echo survives 0.99 twice";
  EXPECT_DOUBLE_EQ(a.loss_pct, 2);
  EXPECT_DOUBLE_EQ(a.rtt_min_ms, 19.2);
  EXPECT_DOUBLE_EQ(a.rtt_p50_ms, 20.5);
  EXPECT_TRUE(a.departures.empty()) << a.departures.front();
  EXPECT_EQ(achieved_text(achieved_json(wan, a)),
            "round trip 20.5 ms median (min 19.2, p99 20.5; asked 20.0), loss 10 of 500 = 2.00 % (99 %: 0.75-4.23; "
            "asked 1.99), 0 reordered");
}

TEST(AchievedPath, WhereThePathDepartsFromWhatWasAskedItSaysHow) {
  ImpairedPath wan{"wan", "a", "b", {}, 10, 5, 0, false};
  auto slow = achieved_path(wan, echoes(500, std::vector<double>(470, 24.0), 3));
  ASSERT_EQ(slow.departures.size(), 3u);
  EXPECT_EQ(slow.departures[0],
            "round trip 24.0 ms, more than the 20.0 ms asked (jitter in order: a packet leaves no earlier than the one "
            "before it)");
  EXPECT_EQ(slow.departures[1], "loss 6.00 % a round trip (99 % interval 3.59-9.28), not the 0.00 % asked");
  EXPECT_EQ(slow.departures[2], "3 echo(es) overtaken although the link keeps packets in order");
  const std::string text = achieved_text(achieved_json(wan, slow));
  EXPECT_NE(
      text.find("; departs from what was asked: round trip 24.0 ms, more than the 20.0 ms asked (jitter in order"),
      std::string::npos)
      << text;
  // 10 % and 1 ms over the asked round trip is a guest's or a veth's own time, not a departure.
  EXPECT_TRUE(achieved_path(wan, echoes(500, std::vector<double>(500, 22.9))).departures.empty());
  EXPECT_EQ(achieved_path(wan, echoes(500, std::vector<double>(500, 17.0))).departures,
            std::vector<std::string>{"round trip 17.0 ms, less than the 20.0 ms asked"})
      << "netem not applied on one direction";
  wan.reorder = true;
  EXPECT_TRUE(achieved_path(wan, echoes(500, std::vector<double>(500, 20.0), 40)).departures.empty())
      << "reordering was asked for";
  EXPECT_EQ(achieved_path(wan, echoes(500, {})).departures, std::vector<std::string>{"no echo was answered"});
  EXPECT_EQ(achieved_text({{"from", "a"}, {"to", "b"}, {"not_measured", "hosts backend has no echo probe"}}),
            "not measured: hosts backend has no echo probe");
}

// The report says what each impaired link was asked for and what it achieved; a record
// whose figures were tampered with is refused with the field named, not printed.
TEST(AchievedPath, TheReportShowsWhatWasAskedAndWhatWasAchieved) {
  char tmpl[] = "/tmp/vpnlab-achieved-XXXXXX";
  const std::filesystem::path run = mkdtemp(tmpl);
  const std::filesystem::path golden = std::filesystem::path(VPNLAB_TEST_DATA) / "run-golden";
  for (const char* f : {"results.csv", "environment.json", "audit.json"})
    std::filesystem::copy_file(golden / f, run / f);
  std::filesystem::copy(golden / "raw", run / "raw", std::filesystem::copy_options::recursive);
  auto env = nlohmann::json::parse(read_file_text((run / "environment.json").string()));
  env["impaired_links"] = {{{"link", "wan"},
                            {"profile", "wan-20ms"},
                            {"delay_ms", 10.0},
                            {"jitter_ms", 1.0},
                            {"loss_pct", 0.0},
                            {"reorder", false},
                            {"where", "egress of every end (netem)"}}};
  const ImpairedPath wan{"wan", "a", "b", {}, 10, 1, 0, false};
  env["achieved_paths"]["wan"] = achieved_json(wan, achieved_path(wan, echoes(500, std::vector<double>(500, 21.4))));
  ASSERT_TRUE(write_file((run / "environment.json").string(), env.dump(2), 0640).ok());
  ASSERT_TRUE(write_report(run.string()).ok());
  const std::string report = read_file_text((run / "report.md").string());
  EXPECT_NE(
      report.find("Impaired link wan (profile wan-20ms): delay 10.0 ms +- 1.0 ms (in order), loss 0.00 % each way, on "
                  "the egress of "
                  "every end (netem); achieved on the baseline's path (a to b, before any product): round trip 21.4 ms "
                  "median (min "
                  "21.4, p99 21.4; asked 20.0), loss 0 of 500 = 0.00 % (99 %: 0.00-1.05; asked 0.00), 0 reordered."),
      std::string::npos)
      << report.substr(std::min(report.size(), report.find("Impaired")), 600);
  env["achieved_paths"]["wan"]["sent"] = "many";
  ASSERT_TRUE(write_file((run / "environment.json").string(), env.dump(2), 0640).ok());
  auto refused = write_report(run.string());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            (run / "environment.json").string() + ": achieved_paths.wan.sent is a string, expected a whole number");
  std::filesystem::remove_all(run);
}

// A resumed run measures its links again on its first lab: the first session's record stays
// (it is what the first rows crossed), and the new one is only set where none was.
TEST(AchievedPath, AResumedRunKeepsTheFirstSessionsRecord) {
  char tmpl[] = "/tmp/vpnlab-achieved-XXXXXX";
  const std::string run = mkdtemp(tmpl);
  ASSERT_TRUE(write_file(run + "/environment.json", "{}", 0640).ok());
  const ImpairedPath wan{"wan", "a", "b", {}, 10, 1, 0, false};
  const auto first = achieved_json(wan, achieved_path(wan, echoes(500, std::vector<double>(500, 21.4))));
  const auto again = achieved_json(wan, achieved_path(wan, echoes(500, std::vector<double>(500, 21.9))));
  const auto other = achieved_json(wan, achieved_path(wan, echoes(500, std::vector<double>(500, 35.0))));
  nlohmann::json kept;
  auto record = EnvironmentRecord::reopen(run);
  ASSERT_TRUE(record.ok()) << record.error().format();
  ASSERT_TRUE(record->set_entry_once("achieved_paths", "wan", first, &kept).ok());
  EXPECT_TRUE(kept.is_null());
  auto resumed = EnvironmentRecord::reopen(run);  // the next session reads what the first wrote
  ASSERT_TRUE(resumed.ok()) << resumed.error().format();
  ASSERT_TRUE(resumed->set_entry_once("achieved_paths", "wan", other, &kept).ok());
  EXPECT_EQ(kept, first);
  EXPECT_EQ(nlohmann::json::parse(read_file_text(run + "/environment.json"))["achieved_paths"]["wan"], first);
  // Alike: within 10 % + 1 ms, overlapping loss intervals, order kept by both.
  EXPECT_TRUE(achieved_alike(first, again));
  EXPECT_FALSE(achieved_alike(first, other));
  std::filesystem::remove_all(run);
}
