// The suite file and the scorecard: a suite is read with located errors; a scorecard's cells
// come from the rows of the runs it names, with the interval its verdicts read; the page is
// drawn from the scorecard alone and escapes what came from the runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../temp_paths.h"
#include "lab/app/suite_run.h"
#include "lab/model/suite.h"
#include "lab/record/results_csv.h"
#include "lab/results/hand_recipe.h"
#include "lab/results/scorecard.h"
#include "lab/results/scorecard_diff.h"

namespace vpnlab {
namespace {

std::string error_of(const std::string& text) {
  auto s = parse_suite_text(text, "suites/x.toml");
  return s ? std::string("parsed") : s.error().format();
}

TEST(Suite, TheMinimalFormReadsAndTopologiesAreBesideTheFile) {
  auto s = parse_suite_text(
      "[suite]\nname = \"seeds\"\n[[scenario]]\nname = \"bulk\"\ntopology = \"../topologies/quick.toml\"\n",
      "suites/seeds.toml");
  ASSERT_TRUE(s.ok()) << s.error().format();
  EXPECT_EQ(s->name, "seeds");
  ASSERT_EQ(s->scenarios.size(), 1u);
  EXPECT_EQ(s->scenarios[0].topology, "topologies/quick.toml");
  EXPECT_EQ(s->scenarios[0].line, 3);
  EXPECT_DOUBLE_EQ(s->precision, kDefaultSuitePrecision);
  EXPECT_FALSE(s->budget_s.has_value());
}

TEST(Suite, SuiteProductsAreEachScenariosDefault) {
  auto s = parse_suite_text(
      "[suite]\nname = \"s\"\nproducts = [\"baseline\", \"nebula\"]\nbudget = \"20m\"\nprecision = \"2%\"\n"
      "[[scenario]]\nname = \"a\"\ntopology = \"/abs/t.toml\"\n"
      "[[scenario]]\nname = \"b\"\ntopology = \"t.toml\"\nproducts = [\"baseline\"]\ntests = [\"rr\"]\n",
      "s.toml");
  ASSERT_TRUE(s.ok()) << s.error().format();
  EXPECT_EQ(s->scenarios[0].products, (std::vector<std::string>{"baseline", "nebula"}));
  EXPECT_EQ(s->scenarios[0].topology, "/abs/t.toml");
  EXPECT_EQ(s->scenarios[1].products, (std::vector<std::string>{"baseline"}));
  EXPECT_EQ(s->scenarios[1].tests, (std::vector<std::string>{"rr"}));
  EXPECT_DOUBLE_EQ(*s->budget_s, 1200);
  EXPECT_DOUBLE_EQ(s->precision, 0.02);
}

TEST(Suite, MistakesAreLocatedWithTheirFix) {
  EXPECT_EQ(error_of("[[scenario]]\nname = \"a\"\ntopology = \"t.toml\"\n"),
            "vpnlab: error: suites/x.toml:1:1: missing table [suite]\nhint: add [suite] with name = \"seeds\"");
  EXPECT_EQ(error_of("[suite]\nname = \"s\"\n"),
            "vpnlab: error: suites/x.toml:1:1: the suite has no scenario\nhint: add [[scenario]] with name = \"bulk\" "
            "and topology = "
            "\"../topologies/quick.toml\"");
  EXPECT_EQ(error_of("[suite]\nname = \"s\"\n[[scenario]]\nname = \"a\"\ntopolgy = \"t.toml\"\n"),
            "vpnlab: error: suites/x.toml:5:11: scenario: unknown key 'topolgy'\nhint: did you mean 'topology'?");
  EXPECT_EQ(error_of("[suite]\nname = \"s\"\n[[scenario]]\nname = \"a\"\ntopology = \"t.toml\"\n[[scenario]]\nname = "
                     "\"a\"\ntopology = \"u.toml\"\n"),
            "vpnlab: error: suites/x.toml:6:1: scenario 'a' is listed twice\nhint: give each scenario its own name: it "
            "is its directory in the output");
  EXPECT_EQ(error_of("[suite]\nname = \"s\"\n[[scenario]]\nname = \"../x\"\ntopology = \"t.toml\"\n"),
            "vpnlab: error: suites/x.toml:3:1: scenario name '../x' is invalid\nhint: use 1 to 40 characters from "
            "[a-z0-9-], not starting with '-'");
  EXPECT_EQ(error_of("[suite]\nname = \"s\"\nbudget = \"5s\"\n[[scenario]]\nname = \"a\"\ntopology = \"t.toml\"\n"),
            "vpnlab: error: suites/x.toml:3:10: suite: 'budget' is not a duration from 1m to 168h\nhint: write budget "
            "= \"20m\"");
}

// Tiers join the tier's head, not the one just ahead: a chain of small overlaps (1.0..6.4 in
// steps whose intervals touch) does not make one tier of products 6.4x apart.
TEST(Scorecard, ATierIsWhatCannotBeToldFromItsHead) {
  std::vector<RankedValue> chain;
  for (double v = 6.4; v >= 1.0; v /= 1.25) chain.push_back({v, v / 1.2, v * 1.2});
  const auto tiers = tiers_of(chain, /*higher_is_better=*/true);
  EXPECT_EQ(tiers.front(), 1);
  EXPECT_GT(tiers.back(), 2) << "products 6.4x apart in " << tiers.back() << " tiers";
  EXPECT_EQ(tiers_of({{1, 0.9, 1.1}, {1.05, 0.95, 1.15}, {3, 2.9, 3.1}}, true), (std::vector<int>{2, 2, 1}));
  EXPECT_EQ(tiers_of({{1, 0.9, 1.1}, {3, 2.9, 3.1}}, /*higher_is_better=*/false), (std::vector<int>{1, 2}))
      << "lower is better: latency";
}

// A suite directory holding copies of the golden runs: bulk (baseline, wireguard-go) and the
// other kinds (rr, crr, idle, UDP), one with a hostile reason planted in a failed row.
std::string golden_suite_dir() {
  const std::string out = make_temp_dir("scorecard");
  for (const auto& [scenario, golden] : {std::pair{"bulk", "run-golden"}, {"kinds", "run-golden-kinds"}}) {
    const std::string src = std::string(VPNLAB_TEST_DATA) + "/" + golden;
    auto rows = read_results_csv(src + "/results.csv");
    EXPECT_TRUE(rows.ok());
    const std::string dir = out + "/runs/" + scenario + "/" + rows->front().run_id;
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(src + "/results.csv", dir + "/results.csv");
    std::filesystem::copy_file(src + "/environment.json", dir + "/environment.json");
  }
  return out;
}

std::vector<ScorecardScenario> golden_scenarios(const std::string& out) {
  std::vector<ScorecardScenario> v;
  for (const char* name : {"bulk", "kinds"})
    for (const auto& e : std::filesystem::directory_iterator(out + "/runs/" + name))
      v.push_back({name,
                   "topologies/quick.toml",
                   "done",
                   "runs/" + std::string(name) + "/" + e.path().filename().string(),
                   "",
                   {},
                   ""});
  return v;
}

TEST(Scorecard, EveryCellTracesToItsRowsAndItsVerdictToItsInterval) {
  const std::string out = golden_suite_dir();
  const auto card = scorecard_json("golden", "suites/golden.toml", out, golden_scenarios(out), "2026-12-06T00:00:00Z");
  ASSERT_EQ(card["scenarios"].size(), 2u);
  int headlines = 0;
  for (const auto& c : card["cells"]) {
    SCOPED_TRACE(c.dump());
    ASSERT_TRUE(std::filesystem::exists(out + "/" + c["run"].get<std::string>() + "/results.csv"));
    if (c.contains("failure")) continue;
    const double low = c["interval"][0], high = c["interval"][1], value = c["value"];
    EXPECT_LE(low, value);
    EXPECT_LE(value, high);
    if (!c.value("headline", false)) continue;
    ++headlines;
    // The samples are the run's own valid rows of that product and test.
    auto rows = read_results_csv(out + "/" + c["run"].get<std::string>() + "/results.csv");
    std::vector<double> expected;
    for (const auto& r : *rows)
      if (r.product == c["product"] && r.test == c["test"] && counts_as_result(r))
        expected.push_back(c["metric"] == "tps" ? r.tps : r.gbps);
    EXPECT_EQ(c["samples"].get<std::vector<double>>(), expected);
    if (c.contains("ratio_to_baseline")) {
      const auto& r = c["ratio_to_baseline"];
      const std::string v = c["verdict_vs_baseline"];
      EXPECT_EQ(v, r["interval"][1].get<double>() < 1   ? "slower"
                   : r["interval"][0].get<double>() > 1 ? "faster"
                                                        : "not different");
    }
  }
  EXPECT_GE(headlines, 4);
  bool rr = false;
  for (const auto& c : card["cells"])
    rr = rr || (c["test"] == "rr" && c["metric"] == "tps" && c["product"] == "wireguard-go");
  EXPECT_TRUE(rr) << "an rr test has a transactions/s cell";
}

TEST(Scorecard, AFailureIsACellWithItsEscapedReasonOnThePage) {
  const std::string out = golden_suite_dir();
  auto scenarios = golden_scenarios(out);
  const std::string csv = out + "/" + scenarios[0].run + "/results.csv";
  auto rows = read_results_csv(csv);
  ASSERT_TRUE(rows.ok());
  // Every nebula sample of the bulk test failed, with a reason that tries markup and escapes.
  SampleRow bad = rows->front();
  bad.product = "nebula";
  bad.valid = false;
  bad.status = "failed";
  bad.gbps = 0;
  bad.reason = "<script>alert(1)</script> \x1b[31mred";
  rows->push_back(bad);
  std::string text;
  for (const auto& h : results_csv_header()) text += (text.empty() ? "" : ",") + h;
  text += "\n";
  for (const auto& r : *rows) text += format_row(r);
  std::ofstream(csv, std::ios::trunc) << text;
  const auto card = scorecard_json("golden", "suites/golden.toml", out, scenarios, "2026-12-06T00:00:00Z");
  bool failed = false;
  for (const auto& c : card["cells"])
    if (c["product"] == "nebula" && c.contains("failure"))
      failed = c["failure"].get<std::string>().find("<script>") != std::string::npos;
  const std::string page = scorecard_html(card);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find('\x1b'), std::string::npos);
  EXPECT_TRUE(failed) << "the failed product is a cell with its reason: " << card["scenarios"][0].dump();
  EXPECT_NE(page.find("failed: &lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << page;
  EXPECT_EQ(page.find("http"), std::string::npos) << "nothing is fetched: no address on the page";
}

// The headline's tiers read the interval the page prints, the round-paired ratio: two tunnels
// whose Gbit/s ranges overlap (the machine swung the baseline too) are told apart by their
// ratios, which do not swing.
TEST(Scorecard, HeadlineTiersReadTheRatioIntervalThePagePrints) {
  const std::string out = make_temp_dir("scorecard-tiers");
  const std::string dir = out + "/runs/bulk/20261206-120000-abcd";
  std::filesystem::create_directories(dir);
  auto golden = read_results_csv(std::string(VPNLAB_TEST_DATA) + "/run-golden/results.csv");
  ASSERT_TRUE(golden.ok());
  std::string text;
  for (const auto& h : results_csv_header()) text += (text.empty() ? "" : ",") + h;
  text += "\n";
  for (int round = 1; round <= 6; ++round)
    for (const auto& [product, share] : {std::pair{"baseline", 1.0}, {"wireguard-go", 0.10}, {"nebula", 0.12}}) {
      SampleRow r = golden->front();
      r.run_id = "20261206-120000-abcd", r.product = product, r.sample = round, r.valid = true, r.status = "ok";
      r.gbps = (round % 2 ? 8.0 : 12.0) * share;
      text += format_row(r);
    }
  std::ofstream(dir + "/results.csv") << text;
  const auto card =
      scorecard_json("s", "s.toml", out, {{"bulk", "t.toml", "done", "runs/bulk/20261206-120000-abcd", "", {}, ""}},
                     "2026-12-06T00:00:00Z");
  std::map<std::string, int> tier;
  for (const auto& c : card["cells"])
    if (c.value("headline", false) && c.contains("tier")) tier[c["product"]] = c["tier"];
  EXPECT_EQ(tier["nebula"], 1);
  EXPECT_EQ(tier["wireguard-go"], 2) << card.dump(2);
}

// The feature matrix: what each product declares, and the rows a scenario measures link to it.
TEST(Scorecard, AFeatureRowLinksToTheScenarioThatMeasuresIt) {
  const std::string out = make_temp_dir("scorecard-features");
  auto card =
      scorecard_json("s", "s.toml", out, {{"relayed", "t.toml", "done", "", "", {}, "relay"}}, "2026-12-06T00:00:00Z");
  card["products"] =
      features_json({{"nebula", "AES-256-GCM", "Debian: nebula", true, {"p2p", "mesh", "relay"}, 1500, 60},
                     {"wireguard-go", "ChaCha20-Poly1305", "Debian: wireguard-go", true, {"p2p", "mesh"}, 65535, 60}});
  const std::string page = scorecard_html(card);
  const size_t row =
      page.find("<td class=\"name\">native relay</td><td class=\"name\">yes</td><td class=\"name\">no</td>");
  ASSERT_NE(row, std::string::npos) << page;
  EXPECT_EQ(page.find("<a href=\"#relayed\">relayed</a>", row), page.find("<a href=\"#relayed\">", row))
      << "linked from its row";
  EXPECT_NE(page.find("<a href=\"#relayed\">relayed</a>", row), std::string::npos);
  EXPECT_EQ(error_of("[suite]\nname = \"s\"\n[[scenario]]\nname = \"a\"\ntopology = \"t.toml\"\nfeature = \"speed\"\n"),
            "vpnlab: error: suites/x.toml:6:11: scenario 'a': feature 'speed' is not a row of the feature matrix\n"
            "hint: one of: relay, chain, firewall, mtu, mesh, site-to-site");
}

TEST(Scorecard, AScenarioThatDidNotRunSaysWhy) {
  const std::string out = make_temp_dir("scorecard-failed");
  const auto card = scorecard_json("s", "s.toml", out,
                                   {{"gone", "t.toml", "failed", "", "vpnlab: error: t.toml: no such file", {}, ""}},
                                   "2026-12-06T00:00:00Z");
  EXPECT_EQ(card["scenarios"][0]["error"], "vpnlab: error: t.toml: no such file");
  EXPECT_NE(scorecard_html(card).find("t.toml: no such file"), std::string::npos);
}

}  // namespace
}  // namespace vpnlab

namespace vpnlab {
namespace {

nlohmann::json card_of(std::vector<nlohmann::json> cells) { return {{"schema", 1}, {"suite", "s"}, {"cells", cells}}; }

nlohmann::json gbps_cell(const std::string& product, double value, double low, double high) {
  return {{"scenario", "bulk"}, {"test", "a-to-b"},         {"product", product}, {"metric", "gbps"},
          {"title", "Gbit/s"},  {"higher_is_better", true}, {"value", value},     {"interval", {low, high}}};
}

// Two scorecards: a cell changed when its two intervals are disjoint, in the figure's own
// direction; overlapping intervals are "within"; a product that now fails is a change.
TEST(SuiteDiff, ACellChangedOnlyWhenItsIntervalsAreDisjoint) {
  nlohmann::json failing = gbps_cell("nebula", 0, 0, 0);
  failing["value"] = nullptr;
  failing["interval"] = nullptr;
  failing["failure"] = "never came up";
  const auto a = card_of({gbps_cell("wireguard-go", 1.0, 0.95, 1.05), gbps_cell("boringtun", 2.0, 1.9, 2.1),
                          gbps_cell("nebula", 0.8, 0.7, 0.9), gbps_cell("openvpn", 0.3, 0.28, 0.32)});
  const auto b = card_of({gbps_cell("wireguard-go", 0.8, 0.75, 0.85), gbps_cell("boringtun", 2.05, 2.0, 2.2), failing,
                          gbps_cell("tinc", 0.4, 0.3, 0.5)});
  const auto d = scorecard_diff(a, b, "A", "B");
  ASSERT_EQ(d["changed"].size(), 2u) << d.dump(2);
  EXPECT_EQ(d["changed"][0]["product"], "wireguard-go");
  EXPECT_EQ(d["changed"][0]["verdict"], "worse");
  EXPECT_NEAR(d["changed"][0]["b_over_a"].get<double>(), 0.8, 1e-12);
  EXPECT_EQ(d["changed"][1]["verdict"], "now failing");
  EXPECT_EQ(d["same"], 1) << "boringtun's intervals overlap";
  EXPECT_EQ(d["only_in_a"][0]["product"], "openvpn");
  EXPECT_EQ(d["only_in_b"][0]["product"], "tinc");
  const std::string text = scorecard_diff_text(d);
  EXPECT_NE(text.find("bulk / a-to-b / wireguard-go / gbps: worse, 1 [0.95, 1.05] -> 0.8 [0.75, 0.85] (B/A 0.8)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("only in A: bulk / a-to-b / openvpn / gbps"), std::string::npos) << text;
  // Lower is better: a latency that fell is better.
  auto la = gbps_cell("wireguard-go", 5, 4.5, 5.5), lb = gbps_cell("wireguard-go", 3, 2.5, 3.5);
  la["metric"] = lb["metric"] = "latency_p99_ms";
  la["higher_is_better"] = lb["higher_is_better"] = false;
  EXPECT_EQ(scorecard_diff(card_of({la}), card_of({lb}), "A", "B")["changed"][0]["verdict"], "better");
}

TEST(SuiteDiff, AFileThatIsNotAScorecardIsALocatedError) {
  const std::string dir = make_temp_dir("suite-diff");
  std::ofstream(dir + "/scorecard.json") << R"({"schema": 1, "suite": "s", "cells": [{"scenario": 3}]})";
  auto r = read_scorecard(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(dir + "/scorecard.json"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("scenario"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace vpnlab

namespace vpnlab {
namespace {

void write_cmd(const std::string& path, const std::vector<std::string>& argv, const std::string& env,
               const std::string& cpus, bool node, bool daemon = false) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::string t = "exe: /usr/bin/" + argv.front() + "\nargv:\n";
  for (const auto& a : argv) t += "  " + a + "\n";
  t += "env (added to PATH, LANG=C.UTF-8, HOME=/root):\n" + env + "cpus: " + cpus +
       "\nnetwork namespace: " + (node ? "the node's" : "the host's") + "\n";
  if (daemon) t += "runs until stopped: yes\n";
  std::ofstream(path) << t;
}

}  // namespace

// The hand recipe is what ran: the product's round-1 commands in the order they ran (the
// host's prepare steps first), then each test's first sample, server before client; a
// word a shell would split is quoted; a link or an oversized file in the run is no command.
TEST(Scorecard, TheHandRecipeIsTheCommandsTheRunRanInTheirOrder) {
  const std::string run = make_temp_dir("recipe") + "/run";
  const std::string round = run + "/logs/nebula/round-1";
  write_cmd(round + "/b-1-nebula.log.cmd", {"nebula", "-config", "/r/nodes/nebula/b/config.yml"}, "  GOMAXPROCS=1\n",
            "1", true, true);
  write_cmd(round + "/a-2-nebula.log.cmd", {"nebula", "-config", "/r/nodes/nebula/a/config.yml"}, "  GOMAXPROCS=1\n",
            "0", true, true);
  write_cmd(round + "/prepare-1-run.out.cmd", {"nebula-cert", "ca", "-name", "it's a lab"}, "", "not pinned", false);
  write_cmd(round + "/a-counters.out.cmd", {"cat", "/proc/net/dev"}, "", "not pinned", true);  // a meter, not a step
  write_cmd(run + "/logs/nebula/a-to-b/sample-1-server.log.cmd", {"iperf3", "-4", "-s", "-1", "-p", "5201"}, "", "1",
            true);
  write_cmd(run + "/logs/nebula/a-to-b/sample-10-server.log.cmd", {"iperf3", "-s"}, "", "1", true);
  write_cmd(run + "/raw/nebula/a-to-b/sample-1.json.cmd", {"iperf3", "-4", "-c", "10.77.0.2", "-p", "5201"}, "", "0",
            true);
  std::filesystem::create_symlink("/etc/passwd", round + "/a-3-evil.log.cmd");
  std::ofstream(round + "/a-4-huge.log.cmd") << "argv:\n" << std::string(100 << 10, 'x') << "\n";
  write_cmd(round + "/a-99999999999999999999-big.log.cmd", {"evil"}, "", "0",
            true);  // a number no int holds: not a step
  SampleRow row;
  row.product = "nebula";
  row.test = "a-to-b";
  row.client = "a";
  row.server = "b";
  const std::string recipe = hand_recipe(run, "topologies/quick.toml", "nebula", {row});
  EXPECT_EQ(
      recipe,
      "# nebula by hand, as this run ran it, on the lab 'vpnlab up topologies/quick.toml' builds. Open a shell in each "
      "node,\n"
      "# each with its own /run as a run gives the products in a node:\n"
      "#   vpnlab exec topologies/quick.toml b -- unshare -m sh -c 'mount -t tmpfs tmpfs /run && exec bash'\n"
      "#   vpnlab exec topologies/quick.toml a -- unshare -m sh -c 'mount -t tmpfs tmpfs /run && exec bash'\n"
      "# then type each line in its node's shell ('host$': on the host), in this order ('&': it runs until stopped).\n"
      "vpnlab up topologies/quick.toml\n"
      "host$ nebula-cert ca -name 'it'\\''s a lab'\n"
      "b$ taskset -c 1 env GOMAXPROCS=1 nebula -config /r/nodes/nebula/b/config.yml &\n"
      "a$ taskset -c 0 env GOMAXPROCS=1 nebula -config /r/nodes/nebula/a/config.yml &\n"
      "# test a-to-b, sample 1: its server(s), then its client(s)\n"
      "b$ taskset -c 1 iperf3 -4 -s -1 -p 5201 &\n"
      "a$ taskset -c 0 iperf3 -4 -c 10.77.0.2 -p 5201\n"
      "vpnlab down topologies/quick.toml\n");
  EXPECT_EQ(hand_recipe(run, "topologies/quick.toml", "wireguard-go", {row}), "") << "no command kept: no recipe";
}

}  // namespace vpnlab

namespace vpnlab {

// A budget too short for a first look of every scenario is said before anything runs, with
// the budget that would hold one.
TEST(Suite, ABudgetShortOfAFirstLookOfEveryScenarioSaysWhatWouldHoldOne) {
  EXPECT_EQ(budget_note(1200, 600),
            "suite: 20 min hold about 2.0 rounds of every scenario left (one round of each: about 600 s as planned); "
            "a first look needs 3 rounds: give --budget 30m or more, or fewer scenarios");
  EXPECT_EQ(budget_note(1800, 600), "") << "3 rounds fit";
  EXPECT_EQ(budget_note(1200, 0), "") << "nothing left to run";
}

}  // namespace vpnlab
