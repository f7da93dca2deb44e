// `vpnlab suite` for real: two scenarios of real runs in namespaces, Ctrl-C as the second
// starts, --resume finishes it without measuring the first again, and the page a real
// browser lays out shows the numbers scorecard.json holds, which are those of the rows.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "lab/record/results_csv.h"
#include "root_test_support.h"

namespace vpnlab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string two_scenario_suite(const std::string& dir) {
  const std::string file = dir + "/two.toml";
  std::ofstream(file)
      << "[suite]\nname = \"two\"\nbudget = \"2m\"\nprecision = \"10%\"\nproducts = [\"baseline\", \"wireguard-go\"]\n"
      << "[[scenario]]\nname = \"first\"\ntopology = \"" VPNLAB_TOPOLOGIES "/quick.toml\"\n"
      << "[[scenario]]\nname = \"second\"\ntopology = \"" VPNLAB_TOPOLOGIES "/quick.toml\"\n";
  return file;
}

json read_json(const std::string& path) { return json::parse(read_file(path)); }

// The first number in the text of the element with `id` in the browser's DOM.
std::optional<double> number_in_cell(const std::string& dom, const std::string& id) {
  const size_t at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return std::nullopt;
  const size_t text = dom.find('>', at);
  std::smatch m;
  const std::string rest = dom.substr(text + 1, 200);
  if (!std::regex_search(rest, m, std::regex("[0-9]+(\\.[0-9]+)?(e-?[0-9]+)?"))) return std::nullopt;
  return std::stod(m.str());
}

TEST(SuiteRoot, InterruptedThenResumedKeepsWhatItFinishedAndThePageShowsTheRows) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  VPNLAB_REQUIRE_PROGRAM("chromium-headless-shell");
  const std::string dir = make_temp_dir("suite");
  const std::string suite = two_scenario_suite(dir), out = dir + "/out";
  // Ctrl-C as the second scenario's run starts (recorded as running).
  CliOutcome stopped =
      vpnlab_cli({"suite", suite, "--out", out, "--no-history"}, {{"VPNLAB_FAULT", "suite-scenario:2:int"}});
  ASSERT_EQ(stopped.status, 130) << stopped.out << stopped.err;
  EXPECT_NE(stopped.err.find("continue with 'vpnlab suite " + suite + " --resume " + out + "'"), std::string::npos)
      << stopped.err;
  EXPECT_TRUE(list_namespaces("vpnlab-quick-").empty());
  json progress = read_json(out + "/progress.json");
  ASSERT_EQ(progress["scenarios"].size(), 2u);
  EXPECT_EQ(progress["scenarios"][0]["state"], "done");
  EXPECT_EQ(progress["scenarios"][1]["state"], "running");
  const std::string first_run = progress["scenarios"][0]["run"];
  const std::string first_rows = read_file(out + "/" + first_run + "/results.csv");
  ASSERT_FALSE(first_rows.empty());

  CliOutcome resumed = vpnlab_cli({"suite", suite, "--resume", out, "--no-history"});
  ASSERT_TRUE(resumed.status == 0 || resumed.status == 5) << resumed.out << resumed.err;
  EXPECT_EQ(read_file(out + "/" + first_run + "/results.csv"), first_rows)
      << "the finished scenario is not measured again";
  progress = read_json(out + "/progress.json");
  EXPECT_EQ(progress["scenarios"][0]["run"], first_run);
  size_t first_runs = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(out + "/runs/first")) ++first_runs;
  EXPECT_EQ(first_runs, 1u) << "no second run of the finished scenario";
  EXPECT_EQ(progress["scenarios"][1]["state"], "done");
  EXPECT_TRUE(list_namespaces("vpnlab-quick-").empty());

  // Every headline cell's samples are its run's valid rows; a tunnel's ratio is on the page.
  const json card = read_json(out + "/scorecard.json");
  CliOutcome dom = run_program(
      {"chromium-headless-shell", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + out + "/index.html"}, {},
      120);
  ASSERT_EQ(dom.status, 0) << dom.err;
  int checked = 0;
  for (const auto& c : card["cells"]) {
    if (!c.value("headline", false) || c.contains("failure")) continue;
    SCOPED_TRACE(c.dump());
    auto rows = read_results_csv(out + "/" + c["run"].get<std::string>() + "/results.csv");
    ASSERT_TRUE(rows.ok());
    std::vector<double> valid;
    for (const auto& r : *rows)
      if (r.product == c["product"] && r.test == c["test"] && counts_as_result(r)) valid.push_back(r.gbps);
    EXPECT_EQ(c["samples"].get<std::vector<double>>(), valid);
    const double shown_value =
        c.contains("ratio_to_baseline") ? c["ratio_to_baseline"]["value"].get<double>() : c["value"].get<double>();
    const auto on_page =
        number_in_cell(dom.out, "cell-" + c["scenario"].get<std::string>() + "-" + c["test"].get<std::string>() + "-" +
                                    c["product"].get<std::string>());
    ASSERT_TRUE(on_page.has_value()) << "no cell on the page";
    EXPECT_NEAR(*on_page, shown_value, std::fabs(shown_value) * 0.006) << "the page shows what scorecard.json holds";
    ++checked;
  }
  EXPECT_EQ(checked, 4) << "2 scenarios x 2 products";
  fs::create_directories(VPNLAB_ARTIFACTS);
  fs::copy_file(out + "/index.html", std::string(VPNLAB_ARTIFACTS) + "/scorecard-two.html",
                fs::copy_options::overwrite_existing);
}

}  // namespace
}  // namespace vpnlab::testing
