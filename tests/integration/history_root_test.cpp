// The history as a user meets it: real runs appended one by one, a vpnlab killed in the
// middle of its append (the file keeps the earlier runs and stays whole), `history check`
// exiting 0 on a series of the same build and 3 once the newest run is a build held to a
// CPU quota, and the trend page laid out by a real browser.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <iostream>
#include <random>

#include <nlohmann/json.hpp>

#include "browser_layout.h"
#include "lab/history/history_store.h"
#include "root_test_support.h"
#include "slowdown.h"

namespace vpnlab::testing {
namespace {

namespace fs = std::filesystem;

std::string integrity(const std::string& path) {
  sqlite3* raw = nullptr;
  if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return "cannot open";
  sqlite3_stmt* st = nullptr;
  std::string out = "no answer";
  if (sqlite3_prepare_v2(raw, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(raw);
  return out;
}

size_t runs_in(const std::map<std::string, std::string>& env) {
  CliOutcome o = vpnlab_cli({"history", "--json"}, env);
  EXPECT_EQ(o.status, 0) << o.err;
  return o.status == 0 ? nlohmann::json::parse(o.out)["runs"].size() : 0;
}

TEST(HistoryRoot, RunsAppendAKillMidAppendKeepsTheRestAndCheckGatesOnASlowedBuild) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  const std::string cgroup_root = cpu_cgroup_root();
  if (cgroup_root.empty()) GTEST_SKIP() << "no cgroup CPU controller here: no CPU quota to slow a build with";
  const std::string dir = make_temp_dir("history-root");
  const std::string history = dir + "/h.sqlite";
  const std::map<std::string, std::string> env = {{"VPNLAB_HISTORY", history}};
  // One build under one name in every run: "wireguard-go@hist", the real binary or (last) the slowed one.
  auto run = [&](const std::string& binary, std::map<std::string, std::string> extra = {}) {
    extra.insert(env.begin(), env.end());
    return vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "wireguard-go@hist=" + binary, "--samples",
                       "3", "--duration", "1s", "--out", dir + "/runs"},
                      extra);
  };
  const std::string wg = find_program("wireguard-go");
  for (int i = 0; i < 2; ++i) ASSERT_EQ(run(wg).status, 0);
  EXPECT_EQ(runs_in(env), 2u) << "two runs, two entries";
  CliOutcome few = vpnlab_cli({"history", "check", "--product", "wireguard-go@hist"}, env);
  EXPECT_EQ(few.status, 4) << few.out << few.err;
  EXPECT_NE(few.out.find("no comparable history (1 of 4 runs)"), std::string::npos) << few.out;
  // kill -9 in the middle of the append (after its second row): the file is whole and holds
  // the two earlier runs; the run's own directory is complete, and import adds it later.
  CliOutcome killed = run(wg, {{"VPNLAB_FAULT", "history-row:2:kill"}});
  EXPECT_EQ(killed.status, 128 + 9) << killed.err;
  ASSERT_EQ(vpnlab_cli({"cleanup"}).status, 0);
  EXPECT_EQ(integrity(history), "ok");
  EXPECT_EQ(runs_in(env), 2u) << "nothing of the killed append is kept";
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(dir + "/runs")) dirs.push_back(e.path().string());
  std::sort(dirs.begin(), dirs.end());
  ASSERT_EQ(dirs.size(), 3u);
  CliOutcome imported = vpnlab_cli({"history", "import", dirs[2], dirs[0]}, env);
  EXPECT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(imported.out, dirs[2] + ": added\n" + dirs[0] + ": already in the history\n");
  EXPECT_EQ(runs_in(env), 3u);
  // Two more of the same build: five comparable runs, the newest no regression; but four
  // earlier runs of 3 one-second samples cannot see a 5 % drop, and the check says so.
  for (int i = 0; i < 2; ++i) ASSERT_EQ(run(wg).status, 0);
  CliOutcome same = vpnlab_cli({"history", "check", "--product", "wireguard-go@hist"}, env);
  // The check's 98 % interval is a claim about the machine's spread as the earlier runs showed
  // it; a shared host sometimes shifts by more between two runs (CI once saw the same build
  // 16 % below four runs 3 % apart). A user who sees "slower" measures again; so does this
  // test, once: a passing build comes back to its level, a broken check flags it again.
  size_t expected_history = 5;
  if (same.status == 3) {
    std::cerr << "the same build was flagged once; measuring it again:\n" << same.out;
    ASSERT_EQ(run(wg).status, 0);
    same = vpnlab_cli({"history", "check", "--product", "wireguard-go@hist"}, env);
    expected_history = 6;
  }
  EXPECT_EQ(same.status, 5) << same.out << same.err;
  EXPECT_NE(same.out.find("no significant change"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("cannot see the threshold: this history detects changes of "), std::string::npos) << same.out;
  // The same name, the build now held to 25 % of a CPU.
  std::string cgroup = make_quota_cgroup(cgroup_root);
  ASSERT_FALSE(cgroup.empty()) << "cannot make a cgroup in " << cgroup_root;
  CliOutcome slow = run(slowed_wireguard_go(make_temp_dir("history-bin"), cgroup));
  remove_gate_cgroups(cgroup_root);
  ASSERT_EQ(slow.status, 0) << slow.err;
  CliOutcome regressed = vpnlab_cli({"history", "check", "--product", "wireguard-go@hist", "--json"}, env);
  EXPECT_EQ(regressed.status, 3) << regressed.out << regressed.err;
  auto j = nlohmann::json::parse(regressed.out);
  ASSERT_EQ(j["lines"].size(), 1u) << regressed.out;
  EXPECT_EQ(j["lines"][0]["verdict"], "slower");
  EXPECT_LT(j["lines"][0]["ci_high"].get<double>(), 1.0) << "the verdict reads its interval";
  EXPECT_EQ(j["lines"][0]["history"], expected_history);
  // And the series shows every run, the slowed one last.
  CliOutcome shown = vpnlab_cli({"history", "--product", "wireguard-go@hist", "--json"}, env);
  ASSERT_EQ(shown.status, 0) << shown.err;
  auto series = nlohmann::json::parse(shown.out)["series"];
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0]["points"].size(), expected_history + 1);
  EXPECT_TRUE(list_namespaces("vpnlab-quick-").empty());
}

// A history of eight dated runs with a 15 % step after the fifth, and one run of five Nebula
// builds: the page has a chart per series, the step marked, and no text overlaps another.
TEST(HistoryInBrowser, TrendPageLaysOutAndMarksTheStep) {
  VPNLAB_REQUIRE_PROGRAM("chromium-headless-shell");
  const std::string dir = make_temp_dir("history-page");
  auto store = HistoryStore::open(dir + "/h.sqlite");
  ASSERT_TRUE(store.ok()) << store.error().format();
  auto golden = read_run_directory(VPNLAB_TEST_DATA "/run-golden");
  ASSERT_TRUE(golden.ok()) << golden.error().format();
  std::mt19937 rng(4);
  std::normal_distribution<double> noise(0, 0.01);
  for (int i = 0; i < 8; ++i) {
    RunRecord r = *golden;
    char id[32], started[32];
    snprintf(id, sizeof id, "20261201-%02d0000-abcd", 10 + i);
    snprintf(started, sizeof started, "2026-12-01T%02d:00:00Z", 10 + i);
    r.run_id = id, r.started = started;
    r.environment["run_id"] = id, r.environment["started"] = started;
    for (auto& row : r.rows) {
      row.run_id = id;
      if (row.product == "wireguard-go") row.gbps = 0.28 * (i >= 5 ? 0.85 : 1.0) * std::exp(noise(rng));
    }
    ASSERT_TRUE(store->add(r).ok());
  }
  RunRecord versions = *golden;
  versions.run_id = "20261202-100000-nebv";
  versions.started = "2026-12-02T10:00:00Z";
  versions.environment["run_id"] = versions.run_id;
  versions.environment["bench"]["samples"] = 3;  // a run holds the samples it declares
  versions.rows.clear();
  const std::vector<std::pair<std::string, std::string>> builds = {{"nebula", "1.6.1"},
                                                                   {"nebula@1.10.3", "1.10.3"},
                                                                   {"nebula@1.7.2", "1.7.2"},
                                                                   {"nebula@1.9.5", "1.9.5"},
                                                                   {"nebula@1.8.2", "1.8.2"}};
  for (size_t b = 0; b < builds.size(); ++b) {
    versions.environment["products"][builds[b].first] = {{"version", "Version: " + builds[b].second},
                                                         {"cipher", "AES-256-GCM"}};
    for (int s = 1; s <= 3; ++s) {
      SampleRow row = golden->rows[1];
      row.run_id = versions.run_id, row.product = builds[b].first, row.sample = s;
      row.gbps = 0.6 + 0.02 * static_cast<double>(b) + 0.005 * s;
      versions.rows.push_back(row);
    }
  }
  ASSERT_TRUE(store->add(versions).ok());
  // The same five builds a day later: each version has two runs, named once under the chart.
  versions.run_id = "20261203-100000-nebv";
  versions.started = "2026-12-03T10:00:00Z";
  versions.environment["run_id"] = versions.run_id;
  versions.environment["started"] = versions.started;
  for (auto& row : versions.rows) row.run_id = versions.run_id, row.gbps *= 1.01;
  ASSERT_TRUE(store->add(versions).ok());
  const std::map<std::string, std::string> env = {{"VPNLAB_HISTORY", dir + "/h.sqlite"}};
  CliOutcome dated = vpnlab_cli({"history", "report", "--product", "wireguard-go", "--out", dir + "/dated"}, env);
  ASSERT_EQ(dated.status, 0) << dated.err;
  CliOutcome by_version =
      vpnlab_cli({"history", "report", "--product", "nebula", "--by", "version", "--out", dir + "/versions"}, env);
  ASSERT_EQ(by_version.status, 0) << by_version.err;
  const std::string page = read_file(dir + "/dated/history.html");
  EXPECT_NE(page.find("class=\"change\""), std::string::npos) << "the step is marked";
  EXPECT_NE(page.find("8 comparable run(s); 1 level change(s) marked"), std::string::npos);
  // Issue 49.7: the page opens on the latest check's verdict and what it can see; the history
  // is named, not located; runs stand on a time axis with dated ticks.
  const size_t check =
      page.find("<p class=\"check\">Latest check (run 20261201-170000-abcd, 'vpnlab history check'): ");
  EXPECT_NE(check, std::string::npos) << page.substr(0, 3000);
  EXPECT_LT(check, page.find("<svg")) << "the verdict comes before the charts";
  EXPECT_NE(page.find("this history detects changes of ", check), std::string::npos);
  EXPECT_EQ(page.find(dir), std::string::npos) << "no absolute path of this machine on a page that is shared";
  EXPECT_NE(page.find("h.sqlite: each point"), std::string::npos);
  EXPECT_NE(page.find(">12-01 10:00<"), std::string::npos) << "a dated tick at the first run";
  EXPECT_NE(page.find(">12-01 17:00<"), std::string::npos) << "and at the last";
  EXPECT_NE(page.find("when the run started (UTC)"), std::string::npos);
  const std::string nebula = read_file(dir + "/versions/history.html");
  const size_t v16 = nebula.find(">1.6.1<"), v19 = nebula.find(">1.9.5<"), v110 = nebula.find(">1.10.3<");
  ASSERT_NE(v110, std::string::npos) << nebula.substr(0, 2000);
  EXPECT_LT(v16, v19);
  EXPECT_LT(v19, v110) << "1.10.3 after 1.9.5";
  size_t named = 0;
  for (size_t k = nebula.find(">1.9.5</text>"); k != std::string::npos; k = nebula.find(">1.9.5</text>", k + 1))
    ++named;
  EXPECT_EQ(named, 1u) << "two runs of 1.9.5, one label";
  for (const auto& [name, html] : {std::pair<std::string, std::string>{"dated", page}, {"versions", nebula}}) {
    auto verdict = browser_layout(html, dir + "/" + name + "-checked.html");
    ASSERT_TRUE(verdict.is_object());
    std::printf("browser: history page (%s): %d charts measured, %zu problems\n", name.c_str(),
                verdict["charts"].get<int>(), verdict["problems"].size());
    EXPECT_GE(verdict["charts"].get<int>(), 1);
    for (const auto& p : verdict["problems"]) ADD_FAILURE() << name << ": " << p.get<std::string>();
  }
  const std::string artifacts = VPNLAB_ARTIFACTS;
  fs::create_directories(artifacts);
  std::vector<std::string> shot = kBrowser;
  shot.insert(shot.end(),
              {"--screenshot=" + artifacts + "/history-trend.png", "file://" + dir + "/dated/history.html"});
  EXPECT_EQ(run_program(shot, {}, 120).status, 0);
  shot.back() = "file://" + dir + "/versions/history.html";
  shot[shot.size() - 2] = "--screenshot=" + artifacts + "/history-versions.png";
  EXPECT_EQ(run_program(shot, {}, 120).status, 0);
}

}  // namespace
}  // namespace vpnlab::testing
