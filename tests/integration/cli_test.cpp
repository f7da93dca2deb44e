// The vpnlab binary as a user runs it: exit codes, messages, SIGINT in the middle of a run.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <algorithm>
#include <functional>
#include <sstream>
#include "lab/base/fs_util.h"
#include "lab/kernel/capabilities.h"
#include "lab/model/product_spec.h"
#include "lab/record/results_csv.h"
#include "lab/results/summary.h"

#include <nlohmann/json.hpp>

#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

TEST(Cli, ValidateRefusesABrokenFileWithOneClearError) {
  std::string file = make_temp_dir("broken") + "/quick.toml";
  std::string text = read_file(VPNLAB_TOPOLOGIES "/quick.toml");
  text.replace(text.find("nodes = [\"a\", \"b\"]"), 18, "nodes = [\"a\", \"c\"]");
  std::ofstream(file) << text;
  auto before = list_namespaces(kLabPrefix);
  CliOutcome o = vpnlab_cli({"validate", file});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err.rfind("vpnlab: error: " + file + ":", 0), 0u) << o.err;
  EXPECT_NE(o.err.find("link 'lan': node 'c' is not defined\nhint: "), std::string::npos) << o.err;
  EXPECT_EQ(list_namespaces(kLabPrefix), before) << "validate must create nothing";
  unlink(file.c_str());
}

TEST(Cli, UnknownVerbAndOptionSuggest) {
  CliOutcome o = vpnlab_cli({"rn"});
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("did you mean 'run'?"), std::string::npos) << o.err;
  o = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--sample", "3"});
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("unknown option '--sample' for 'run': did you mean '--samples'?\n"), std::string::npos) << o.err;
  // A verb whose option means something of its own says so in its help.
  o = vpnlab_cli({"history", "--help"});
  EXPECT_NE(o.out.find("  --out DIR        report: the directory of history.html (default history-report)"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("parent of the run directory"), std::string::npos) << o.out;
  o = vpnlab_cli({"run", "--help"});
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("--samples N"), std::string::npos);
}

// What the file asks of this kernel that it lacks is found at validate (as root), at its
// place in the file, with the backend that has it: a link's delay needs netem; a variant's
// qdisc its module. The vm backend's guests have kernels of their own: not refused there.
TEST(Cli, AQdiscThisKernelLacksIsRefusedAtValidateWhereTheFileAsksForIt) {
  VPNLAB_REQUIRE_ROOT();
  const auto netem = probe_qdiscs({"netem"});
  if (netem.front().second.ok()) GTEST_SKIP() << "this kernel has netem: nothing to refuse";
  std::string text = read_file(VPNLAB_TOPOLOGIES "/quick.toml");
  text.replace(text.find("mtu = 1500"), 10, "mtu = 1500\ndelay = \"15ms\"");
  const std::string file = make_temp_dir("netem-validate") + "/delayed.toml";
  std::ofstream(file) << text;
  int line = 1;
  for (size_t at = 0; at < text.find("delay = "); ++at) line += text[at] == '\n';
  for (const char* verb : {"validate", "plan"}) {
    CliOutcome o = vpnlab_cli({verb, file});
    EXPECT_EQ(o.status, 1) << verb << ": " << o.out << o.err;
    EXPECT_EQ(o.err.rfind("vpnlab: error: " + file + ":" + std::to_string(line) +
                              ":9: link 'lan': delay, jitter and loss need the netem qdisc, "
                              "which this kernel lacks (netem qdisc: ",
                          0),
              0u)
        << o.err;
    EXPECT_NE(o.err.find("hint: remove delay/jitter/loss (or the profile) from the link, or run it with --backend vm"),
              std::string::npos)
        << o.err;
  }
  EXPECT_EQ(vpnlab_cli({"validate", file, "--backend", "vm"}).status, 0) << "the guests' kernel is not this one";
}

// "--product all" is every product and registry build that can run here (NAME@VERSION
// included: the builds a maintainer compares most); a build it cannot run is named with why.
// "all-plain" keeps the products by their plain names only.
TEST(Cli, ProductAllIncludesTheRegistryBuilds) {
  VPNLAB_REQUIRE_ROOT();
  std::vector<std::string> builds;
  for (const auto& name : list_products_and_builds(VPNLAB_PRODUCTS_DIR))
    if (name.find('@') != std::string::npos) builds.push_back(name);
  ASSERT_FALSE(builds.empty()) << "the shipped products have registry builds";
  auto products_of = [](const CliOutcome& o) {
    EXPECT_EQ(o.status, 0) << o.err;
    return o.status == 0 ? nlohmann::json::parse(o.out)["products"].get<std::vector<std::string>>()
                         : std::vector<std::string>{};
  };
  CliOutcome all = vpnlab_cli({"plan", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "all", "--json"});
  const auto planned = products_of(all);
  for (const auto& b : builds) {
    const bool in = std::find(planned.begin(), planned.end(), b) != planned.end();
    EXPECT_TRUE(in || all.err.find("skipping " + b + ": ") != std::string::npos)
        << b << " is neither planned nor said why not:\n"
        << all.err;
  }
  const auto plain =
      products_of(vpnlab_cli({"plan", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "all-plain", "--json"}));
  EXPECT_FALSE(plain.empty());
  for (const auto& p : plain) EXPECT_EQ(p.find('@'), std::string::npos) << p;
}

// `plan --test` plans only the tests named, as `run --test` runs them: a new user asking
// one question of a shipped topology needs no hand-edited copy of it.
TEST(Cli, PlanTakesTestsByNameAsRunDoes) {
  CliOutcome one = vpnlab_cli({"plan", VPNLAB_TOPOLOGIES "/latency.toml", "--test", "rr", "--json"});
  ASSERT_EQ(one.status, 0) << one.err;
  auto tests = nlohmann::json::parse(one.out)["tests"];
  ASSERT_EQ(tests.size(), 1u) << one.out;
  EXPECT_EQ(tests[0]["name"], "rr");
  CliOutcome none = vpnlab_cli({"plan", VPNLAB_TOPOLOGIES "/latency.toml", "--test", "nope"});
  EXPECT_EQ(none.status, 1) << none.err;
  EXPECT_NE(none.err.find("nope"), std::string::npos) << none.err;
}

// ssh's private directory of a vpnlab killed before it removed it (its pid gone) is removed
// by cleanup; one whose process lives is not.
TEST(Cli, CleanupRemovesTheSshDirectoryOfAKilledVpnlabOnly) {
  VPNLAB_REQUIRE_ROOT();
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_GT(gone, 0);
  waitpid(gone, nullptr, 0);
  const std::string stale = "/run/vpnlab-ssh-" + std::to_string(gone) + "-tstold";
  const std::string live = "/run/vpnlab-ssh-" + std::to_string(getpid()) + "-tstnew";
  for (const auto& d : {stale, live}) {
    ASSERT_TRUE(std::filesystem::create_directory(d)) << d;
    std::ofstream(d + "/known_hosts-h1") << "h1 ssh-ed25519 AAAA\n";
  }
  CliOutcome o = vpnlab_cli({"cleanup"});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("removed " + stale), std::string::npos) << o.out;
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live)) << "a live vpnlab's directory is its own";
  std::filesystem::remove_all(live);
  std::filesystem::remove_all(stale);
}

// The small conventions a packager checks (issue 35): usage on stderr when it answers a
// mistake, -V, help texts that do not run into their options, completion past the verb.
TEST(Cli, UsageVersionHelpAndCompletionConventions) {
  CliOutcome bare = vpnlab_cli({});
  EXPECT_EQ(bare.status, 2);
  EXPECT_EQ(bare.out, "") << "no verb: usage goes to stderr";
  EXPECT_EQ(bare.err.rfind("usage: vpnlab VERB [ARGS]", 0), 0u) << bare.err;
  CliOutcome help = vpnlab_cli({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_EQ(help.out, bare.err) << "asked for: the same text on stdout";
  EXPECT_NE(help.out.find("\n  5    run: some rows failed or are invalid"), std::string::npos) << help.out;
  CliOutcome v = vpnlab_cli({"-V"});
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out, vpnlab_cli({"--version"}).out);
  CliOutcome diff = vpnlab_cli({"diff", "--help"});
  EXPECT_NE(diff.out.find("  --threshold-cpu X\n                   exit 3 when"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find(
                "  --               what follows is an argument (a file, a run, a name), even if it starts with '-'\n"),
            std::string::npos);
  CliOutcome validate = vpnlab_cli({"validate", "--help"});
  EXPECT_EQ(validate.out.find("measure this product"), std::string::npos) << validate.out;
  EXPECT_EQ(vpnlab_cli({"doctor", "--help"})
                .out.rfind("usage: vpnlab doctor [FILE [--product NAME]...] [--backend B] [--json]\n", 0),
            0u);
  EXPECT_EQ(vpnlab_cli({"_complete", "2", "image", ""}).out, "build\nlist\nclean\n");
  EXPECT_EQ(vpnlab_cli({"_complete", "2", "history", "ch"}).out, "check\n");
  EXPECT_EQ(vpnlab_cli({"_complete", "2", "product", ""}).out, "new\n");
  CliOutcome not_sub = vpnlab_cli({"history", "nope"});
  EXPECT_EQ(not_sub.status, 2);
  EXPECT_NE(not_sub.err.find("'nope' is not a history command (import, export, report, check)"), std::string::npos)
      << "the sub-verbs completion offers: " << not_sub.err;
  EXPECT_EQ(vpnlab_cli({"_complete", "3", "product", "new", ""}).out, "_files\n");
  EXPECT_EQ(vpnlab_cli({"_complete", "3", "image", "build", ""}).out, "_files\n") << "a recipe after 'build'";
  EXPECT_EQ(vpnlab_cli({"_complete", "2", "schema", "s"}).out, "schema\nscorecard.json\nsuite-diff\nsummary.json\n");
  EXPECT_EQ(vpnlab_cli({"_complete", "3", "schema", "run", ""}).out, "") << "one name only";
  const std::string run = VPNLAB_TEST_DATA "/run-golden";
  EXPECT_EQ(vpnlab_cli({"_complete", "3", "compare", run, "w"}).out, "wireguard-go\n");
  EXPECT_EQ(vpnlab_cli({"_complete", "4", "compare", run, "baseline", ""}).out, "baseline\nwireguard-go\n");
  EXPECT_EQ(vpnlab_cli({"_complete", "4", "compare", "--test", "a-to-b", ""}).out, "_files\n")
      << "an option's value is not the run";
}

TEST(Cli, RunWithARelativeOutputDirectory) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  // The README's default is the relative "results": daemons that join a node's mount
  // namespace must still find their files.
  std::string dir = make_temp_dir("rel");
  SpawnSpec s;
  s.argv = {VPNLAB_BINARY, "run",          VPNLAB_TOPOLOGIES "/quick.toml",
            "--product",   "wireguard-go", "--samples",
            "1",           "--duration",   "1s",
            "--out",       "rel-results"};
  with_test_history(&s);
  s.cwd = dir;
  s.stdout_path = dir + "/log";
  auto r = run_command(s, 120);
  ASSERT_TRUE(r.ok());
  std::string log = read_file(dir + "/log");
  EXPECT_EQ(r->exit_status, 0) << log;
  EXPECT_NE(log.find("1/1"), std::string::npos) << log;
}

// run --json: stdout is one JSON document and nothing else (the table and the log go to
// stderr), with the run's directory, its exit status, the timings and summary.json's rows.
TEST(Cli, RunJsonIsOneDocumentOnStdout) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  const std::string dir = make_temp_dir("run-json");
  CliOutcome r =
      vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--samples", "2", "--duration", "1s",
                  "--out", dir, "--no-history", "--json", "--rows-jsonl", dir + "/rows.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << "stdout is not one JSON document:\n" << r.out;
  EXPECT_EQ(j["schema"], 1);
  EXPECT_EQ(j["exit_status"], 0);
  EXPECT_EQ(j["interrupted"], false);
  EXPECT_EQ(j["rows"], 2);
  const std::string run_dir = j["run_dir"].get<std::string>();
  EXPECT_EQ(run_dir.rfind(dir + "/", 0), 0u) << run_dir;
  EXPECT_EQ(j["results_csv"], run_dir + "/results.csv");
  EXPECT_TRUE(std::filesystem::exists(run_dir + "/results.csv"));
  EXPECT_EQ(j["timings"]["samples"], 2);
  EXPECT_TRUE(j["sampling"].is_null()) << "a fixed count: no adaptive sampling";
  EXPECT_EQ(j["summary"], nlohmann::json::parse(read_file(run_dir + "/summary.json")));
  ASSERT_EQ(j["products"].size(), 1u);
  EXPECT_EQ(j["products"][0]["product"], "baseline");
  EXPECT_NE(r.err.find("\nproduct "), std::string::npos) << "the table goes to stderr: " << r.err;
  EXPECT_NE(r.err.find("results: " + run_dir + "/results.csv\n"), std::string::npos) << r.err;
  // --rows-jsonl FILE: the rows of results.csv, one JSON object per line, as they were written.
  auto rows = read_results_csv(run_dir + "/results.csv");
  ASSERT_TRUE(rows.ok());
  std::istringstream lines(read_file(dir + "/rows.jsonl"));
  std::string line;
  size_t n = 0;
  for (; std::getline(lines, line); ++n) {
    ASSERT_LT(n, rows->size());
    EXPECT_EQ(nlohmann::json::parse(line), row_json((*rows)[n])) << line;
  }
  EXPECT_EQ(n, 2u);
}

// run --rows-jsonl -: stdout holds the rows as JSON lines and nothing else; with --json,
// which would share stdout, it is a usage error.
TEST(Cli, RowsJsonlOnStdout) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  const std::string dir = make_temp_dir("rows-jsonl");
  CliOutcome r = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--samples", "2",
                             "--duration", "1s", "--out", dir, "--no-history", "--rows-jsonl", "-"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(j.is_discarded()) << "not a JSON line: " << line;
    EXPECT_EQ(j["product"], "baseline");
    EXPECT_EQ(j["sample"], ++n);
    EXPECT_EQ(j["valid"], true);
    EXPECT_GT(j["gbps"].get<double>(), 0);
  }
  EXPECT_EQ(n, 2);
  EXPECT_NE(r.err.find("\nproduct "), std::string::npos) << "the table goes to stderr";
  CliOutcome both = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--json", "--rows-jsonl", "-"});
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("--json and --rows-jsonl - both write to stdout"), std::string::npos) << both.err;
}

// Every finished run goes into the history; --no-history keeps one out; an import of a run
// already there adds nothing; a history file that is not one costs the run nothing.
TEST(Cli, RunsGoIntoTheHistoryOnceEach) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  const std::string dir = make_temp_dir("history");
  const std::map<std::string, std::string> env = {{"VPNLAB_HISTORY", dir + "/h.sqlite"}};
  std::vector<std::string> run = {"run",        VPNLAB_TOPOLOGIES "/quick.toml",
                                  "--product",  "baseline",
                                  "--samples",  "1",
                                  "--duration", "1s",
                                  "--out",      dir + "/runs"};
  for (int i = 0; i < 2; ++i) {
    CliOutcome r = vpnlab_cli(run, env);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  std::vector<std::string> skipped = run;
  skipped.push_back("--no-history");
  ASSERT_EQ(vpnlab_cli(skipped, env).status, 0);
  CliOutcome listed = vpnlab_cli({"history", "--json"}, env);
  ASSERT_EQ(listed.status, 0) << listed.err;
  auto j = nlohmann::json::parse(listed.out);
  ASSERT_EQ(j["runs"].size(), 2u) << listed.out;
  EXPECT_EQ(j["runs"][0]["valid"], 1);
  // The third run, imported now; the first again adds nothing.
  std::vector<std::string> dirs;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/runs")) dirs.push_back(e.path().string());
  std::sort(dirs.begin(), dirs.end());
  ASSERT_EQ(dirs.size(), 3u);
  CliOutcome imported = vpnlab_cli({"history", "import", dirs[2], dirs[0]}, env);
  EXPECT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(imported.out, dirs[2] + ": added\n" + dirs[0] + ": already in the history\n");
  EXPECT_EQ(nlohmann::json::parse(vpnlab_cli({"history", "--json"}, env).out)["runs"].size(), 3u);
  // A history path that is not a history: the run is complete, exits 0, and says so.
  std::ofstream(dir + "/not-a-db") << std::string(8192, 'x');
  CliOutcome warned = vpnlab_cli(run, {{"VPNLAB_HISTORY", dir + "/not-a-db"}});
  EXPECT_EQ(warned.status, 0) << warned.err;
  EXPECT_NE(warned.err.find("the run is not in the history: " + dir + "/not-a-db: "), std::string::npos) << warned.err;
  EXPECT_EQ(read_file(dir + "/not-a-db"), std::string(8192, 'x'));
}

TEST(Cli, SigintTearsDownKeepsFinishedRowsAndExits130) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string out = make_temp_dir("sigint") + "/out";
  SpawnSpec s;
  s.argv = {VPNLAB_BINARY, "run",        VPNLAB_TOPOLOGIES "/quick.toml",
            "--product",   "baseline",   "--samples",
            "50",          "--duration", "1s",
            "--out",       out};
  with_test_history(&s);
  s.stdout_path = out + ".log";
  auto child = Child::spawn(s);
  ASSERT_TRUE(child.ok()) << child.error().format();
  // Wait (bounded) until at least two rows are on disk, then interrupt mid-run.
  std::string csv;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string dir = read_file(out + ".log");
    auto at = dir.find("results in ");
    if (at != std::string::npos) {
      csv = dir.substr(at + 11, dir.find('\n', at) - at - 11) + "/results.csv";
      auto rows = read_results_csv(csv);
      if (rows.ok() && rows->size() >= 2) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(csv.empty()) << read_file(out + ".log");
  kill((*child)->pid(), SIGINT);
  ASSERT_TRUE((*child)->wait_exit(30000));
  EXPECT_EQ((*child)->exit_status(), 130) << read_file(out + ".log");
  auto rows = read_results_csv(csv);
  ASSERT_TRUE(rows.ok());
  EXPECT_GE(rows->size(), 2u);
  EXPECT_LT(rows->size(), 50u);
  std::string text = read_file(csv);
  EXPECT_EQ(text.back(), '\n') << "no half row";
  for (const auto& r : *rows) EXPECT_EQ(r.status, "ok");
  EXPECT_TRUE(list_namespaces("vpnlab-quick-").empty());
  EXPECT_NE(read_file(out + ".log").find("interrupted"), std::string::npos);

  // The finished rows are enough to redo the summary.
  std::string run_dir = csv.substr(0, csv.rfind('/'));
  std::string summary = read_file(run_dir + "/summary.txt");
  CliOutcome report = vpnlab_cli({"report", run_dir});
  EXPECT_EQ(report.status, 0) << report.err;
  EXPECT_EQ(report.out, summary);
  EXPECT_NE(read_file(run_dir + "/summary.json").find("\"schema\": " + std::to_string(kSummarySchema)),
            std::string::npos);
}

TEST(Cli, ResumeAddsOnlyTheMissingRows) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string out = make_temp_dir("resume");
  // A run of 4 samples whose last 2 rows are cut off stands for an interrupted run.
  CliOutcome first = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--samples", "4",
                                 "--duration", "1s", "--out", out});
  ASSERT_EQ(first.status, 0) << first.err;
  // "results: RUN_DIR/results.csv" closes the output.
  auto at = first.out.find("results: ");
  ASSERT_NE(at, std::string::npos) << first.out;
  std::string run_dir = first.out.substr(at + 9, first.out.find("/results.csv", at) - at - 9);
  {
    std::string csv = read_file(run_dir + "/results.csv");
    size_t cut = 0;
    for (int line = 0; line < 3; ++line) cut = csv.find('\n', cut) + 1;  // the header and 2 rows
    ASSERT_TRUE(write_file(run_dir + "/results.csv", csv.substr(0, cut), 0640).ok());
  }
  auto before = read_results_csv(run_dir + "/results.csv");
  ASSERT_TRUE(before.ok() && before->size() == 2u) << run_dir;
  // The run's own samples and duration (RUN/environment.json): none given here.
  CliOutcome resumed =
      vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--resume", run_dir});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  auto rows = read_results_csv(run_dir + "/results.csv");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ((*rows)[i].sample, i + 1);
    EXPECT_EQ((*rows)[i].run_id, (*before)[0].run_id);
  }
  EXPECT_EQ((*rows)[0].timestamp, (*before)[0].timestamp) << "the earlier rows stay as they were";
  EXPECT_NE(resumed.out.find("4/4"), std::string::npos) << resumed.out;
  // Its end is estimated for what is left, not the whole run again.
  EXPECT_NE(resumed.err.find(" for the 2 of 4 samples left: until about "), std::string::npos) << resumed.err;
  EXPECT_NE(read_file(run_dir + "/environment-resume-1.json"), "") << "the resumed session's provenance is added";
  // Another topology cannot resume this run, and trying changes nothing in it.
  std::string environment = read_file(run_dir + "/environment.json");
  std::string plan = read_file(run_dir + "/plan.txt");
  CliOutcome wrong =
      vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/bridge3.toml", "--product", "baseline", "--resume", run_dir});
  EXPECT_EQ(wrong.status, 1);
  EXPECT_NE(wrong.err.find("was measured with a different topology"), std::string::npos) << wrong.err;
  EXPECT_EQ(read_file(run_dir + "/environment.json"), environment);
  EXPECT_EQ(read_file(run_dir + "/plan.txt"), plan);
  EXPECT_EQ(read_results_csv(run_dir + "/results.csv")->size(), 4u);
}

// A run, its rerun with --from (same keys, same products, same samples), the report of
// each, and diff between them: the verbs that make results reproducible and comparable.
// Two runs, each with one tagged version of a product (as two releases measured on two
// days): diff pairs them, says so, and compares them as one.
TEST(Cli, DiffPairsTheOnlyVersionOfAProductInEachRun) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  const std::string wg = find_program("wireguard-go");
  std::string out = make_temp_dir("tagged") + "/out";
  for (const char* tag : {"v1", "v2"}) {
    auto r =
        vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", std::string("wireguard-go@") + tag + "=" + wg,
                    "--samples", "2", "--duration", "1s", "--out", out + "/" + tag});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
  }
  auto d = vpnlab_cli({"diff", run_dir_in(out + "/v1"), run_dir_in(out + "/v2")});
  ASSERT_EQ(d.status, 0) << d.out << d.err;
  EXPECT_NE(d.out.find("paired across the runs: wireguard-go@v1 in A with wireguard-go@v2 in B, the only version of "
                       "wireguard-go in each"),
            std::string::npos)
      << d.out;
  EXPECT_NE(d.out.find("wireguard-go@v1 -> @v2 a-to-b"), std::string::npos) << d.out;
  EXPECT_EQ(d.out.find("absent in run"), std::string::npos) << d.out;
}

TEST(Cli, RerunFromARunDirectoryThenReportAndDiff) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string out = make_temp_dir("from") + "/out";
  auto vpnlab = [&](std::vector<std::string> args, const std::string& log) {
    SpawnSpec s;
    s.argv = {VPNLAB_BINARY};
    with_test_history(&s);
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    s.stdout_path = out + "-" + log;
    auto r = run_command(s, 180);
    return r.ok() ? r->exit_status : -1;
  };
  ASSERT_EQ(vpnlab({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--samples", "2", "--duration",
                    "1s", "--out", out + "/a"},
                   "a.log"),
            0)
      << read_file(out + "-a.log");
  std::string a = out + "/a/" + std::filesystem::directory_iterator(out + "/a")->path().filename().string();
  ASSERT_EQ(vpnlab({"run", "--from", a, "--out", out + "/b"}, "b.log"), 0) << read_file(out + "-b.log");
  std::string b = out + "/b/" + std::filesystem::directory_iterator(out + "/b")->path().filename().string();
  auto rows = read_results_csv(b + "/results.csv");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 2u);
  EXPECT_EQ(read_file(a + "/keys/a.pub"), read_file(b + "/keys/a.pub")) << "the rerun uses the same keys";
  EXPECT_NE(read_file(b + "/report.html").find("<svg"), std::string::npos);
  EXPECT_EQ(vpnlab({"report", b}, "report.log"), 0);
  EXPECT_EQ(vpnlab({"diff", a, b, "--threshold", "0.9"}, "diff.log"), 0) << read_file(out + "-diff.log");
  EXPECT_NE(read_file(out + "-diff.log").find("baseline"), std::string::npos);
  EXPECT_EQ(vpnlab({"diff", a}, "diff1.log"), 1) << "one run without two tagged versions is refused";
  EXPECT_NE(read_file(out + "-diff1.log").find("NAME@old"), std::string::npos) << read_file(out + "-diff1.log");
  EXPECT_EQ(vpnlab({"diff", a, b, a}, "diff3.log"), 2) << "three runs are a usage error";
  // Provenance of a real run: every field filled (a value the machine does not expose is
  // recorded as "not exposed (...)", never left empty).
  auto env = nlohmann::json::parse(read_file(a + "/environment.json"), nullptr, false);
  ASSERT_FALSE(env.is_discarded());
  std::vector<std::string> empty;
  std::function<void(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& j,
                                                                            const std::string& at) {
    if (j.is_object() || j.is_array()) {
      if (j.empty() && at != "/pinning_notes") empty.push_back(at);
      for (auto it = j.begin(); it != j.end(); ++it) walk(*it, at + "/" + (j.is_object() ? it.key() : "#"));
    } else if (j.is_null() || (j.is_string() && j.get<std::string>().empty())) {
      empty.push_back(at);
    }
  };
  walk(env, "");
  EXPECT_TRUE(empty.empty()) << "empty provenance fields: " << nlohmann::json(empty).dump();
  for (const char* key :
       {"/vpnlab_version", "/topology_sha256", "/kernel/cmdline", "/cpu/model", "/cpu/aes_ni", "/cpu/governor",
        "/cpu/turbo", "/cpu/smt_active", "/steal_s_at_start", "/steal_s_at_end", "/host_sysctls", "/iperf3",
        "/products/baseline/version", "/pinning", "/backend", "/accel", "/started", "/finished"})
    EXPECT_TRUE(env.contains(nlohmann::json::json_pointer(key))) << key;
  EXPECT_NE(read_file(a + "/sysctls.json"), "") << "per-namespace sysctls";
  EXPECT_NE(read_file(a + "/offloads.json").find("tso"), std::string::npos) << "offloads of every lab interface";
}

namespace vpnlab::testing {
namespace {

// What a script reads: `products` as tab-separated columns, `--json` of products and
// doctor (keys of README "Machine-readable output"), --version with the libraries.
TEST(Cli, ProductsAndDoctorAreMachineReadable) {
  CliOutcome o = vpnlab_cli({"products"});
  ASSERT_EQ(o.status, 0) << o.err;
  std::istringstream lines(o.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "NAME\tSTATUS\tCIPHER\tVERSION OR REASON");
  int rows = 0;
  while (std::getline(lines, line)) {
    ++rows;
    EXPECT_GE(std::count(line.begin(), line.end(), '\t'), 3) << line;
    EXPECT_TRUE(line.find("\tavailable\t") != std::string::npos || line.find("\tunavailable\t") != std::string::npos ||
                line.find("\tinvalid\t") != std::string::npos)
        << line;
  }
  EXPECT_GE(rows, 10);
  o = vpnlab_cli({"products", "--json"});
  ASSERT_EQ(o.status, 0) << o.err;
  auto products = nlohmann::json::parse(o.out, nullptr, false);
  ASSERT_FALSE(products.is_discarded()) << o.out;
  EXPECT_EQ(products["schema"], 1);
  EXPECT_EQ(products["products_path"], VPNLAB_PRODUCTS_DIR);
  EXPECT_EQ(static_cast<int>(products["products"].size()), rows);
  EXPECT_EQ(products["products"][0]["name"], "baseline");
  EXPECT_TRUE(products["products"][0]["available"].is_boolean());

  o = vpnlab_cli({"--version"});
  EXPECT_NE(o.out.find("\nbuilt with: libnl "), std::string::npos) << o.out;

  // Completion (completion/vpnlab.bash): verbs, options, products; nonsense gives nothing.
  EXPECT_EQ(vpnlab_cli({"_complete", "1", "pr"}).out, "products\nproduct\n");
  EXPECT_EQ(vpnlab_cli({"_complete", "3", "run", "--product", "wireguard-"}).out, "wireguard-go\nwireguard-kernel\n");
  EXPECT_EQ(vpnlab_cli({"_complete", "2", "cleanup", "--d"}).out, "--dry-run\n");
  EXPECT_EQ(vpnlab_cli({"_complete", "2", "run", "topo"}).out, "_files\n");
  for (std::vector<std::string> nonsense :
       {std::vector<std::string>{"_complete", "9", "run"}, {"_complete", "-3"}, {"_complete", "x", "y"}}) {
    o = vpnlab_cli(nonsense);
    EXPECT_EQ(o.status, 0);
    EXPECT_EQ(o.out, "");
  }

  VPNLAB_REQUIRE_ROOT();
  o = vpnlab_cli({"doctor", "--json"});
  ASSERT_EQ(o.status, 0) << o.err;
  auto doctor = nlohmann::json::parse(o.out, nullptr, false);
  ASSERT_FALSE(doctor.is_discarded()) << o.out;
  for (const char* key :
       {"kernel", "network_features", "virtualisation", "machine", "products", "meaning", "guest_only_products"})
    EXPECT_TRUE(doctor.contains(key)) << key;
  bool boot_probe = false;
  for (const auto& row : doctor["virtualisation"]) boot_probe = boot_probe || row["name"] == "kvm-boot";
  EXPECT_TRUE(boot_probe) << doctor["virtualisation"].dump();
  o = vpnlab_cli({"doctor"});
  EXPECT_NE(o.out.find("  kvm-boot "), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("comes with the VM backend"), std::string::npos) << o.out;

  // doctor FILE of a topology run on this machine: whether each of its products can run
  // here (exit 1 when one cannot, as a product that does not fit the topology is refused
  // by planning), as the README's `doctor [FILE]` promises.
  o = vpnlab_cli({"doctor", VPNLAB_TOPOLOGIES "/quick.toml"});
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("products of " VPNLAB_TOPOLOGIES
                       "/quick.toml (backend netns):\n  baseline              yes  iperf 3."),
            std::string::npos)
      << o.out;
  o = vpnlab_cli({"doctor", VPNLAB_TOPOLOGIES "/bridge3.toml", "--product", "openvpn"});
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("vpnlab: error: product 'openvpn' does not carry a mesh overlay of 3 VPN nodes"),
            std::string::npos)
      << o.err;
}

}  // namespace
}  // namespace vpnlab::testing
