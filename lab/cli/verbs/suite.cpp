// `vpnlab suite FILE`: every scenario of a suite measured in turn into one directory, then
// the scorecard (scorecard.json and index.html) made from their rows.
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include <spdlog/spdlog.h>

#include "lab/app/suite_run.h"
#include "lab/base/exit_codes.h"
#include "lab/base/fs_util.h"
#include "lab/base/utc_time.h"
#include "lab/cli/verbs/verb.h"
#include "lab/history/history_store.h"
#include "lab/history/scorecard_trends.h"
#include "lab/model/install_layout.h"
#include "lab/model/product_spec.h"
#include "lab/results/scorecard.h"
#include "lab/results/scorecard_diff.h"

namespace vpnlab {
namespace {

std::vector<ScorecardScenario> scorecard_scenarios(const Suite& suite, const std::vector<ScenarioState>& states) {
  std::vector<ScorecardScenario> out;
  for (size_t i = 0; i < suite.scenarios.size() && i < states.size(); ++i)
    out.push_back({states[i].name, suite.scenarios[i].topology, states[i].state, states[i].run, states[i].error,
                   suite.scenarios[i].tests, suite.scenarios[i].feature});
  return out;
}

// The feature matrix's columns: the spec of every product the cells name (a build's name
// NAME@TAG=/path as NAME@TAG); one that no longer loads is left out.
nlohmann::json product_features(const nlohmann::json& card) {
  std::vector<std::string> names;
  for (const auto& c : card["cells"]) {
    const std::string p = c.value("product", "");
    const std::string name = p.substr(0, p.find('='));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::vector<ProductFeatures> out;
  for (const auto& name : names) {
    auto spec = load_product(products_path(own_binary_dir()), name);
    if (!spec) continue;
    out.push_back({name, spec->cipher, spec->origin, spec->encrypted && spec->tunnel, spec->shapes, spec->max_mtu,
                   spec->overhead});
  }
  return features_json(out);
}

// scorecard.json and index.html, each replaced whole. The history (read only; a machine
// without one has no trends) gives each cell its past.
Status write_scorecard(const Suite& suite, const std::string& out_dir, const std::vector<ScenarioState>& states,
                       const std::string& history) {
  auto card = scorecard_json(suite.name, suite.file, out_dir, scorecard_scenarios(suite, states), utc_now());
  card["products"] = product_features(card);
  const std::string path = history.empty() ? default_history_path() : history;
  if (access(path.c_str(), F_OK) == 0) {
    auto store = HistoryStore::open(path, HistoryAccess::read_only);
    Status trends = store ? add_scorecard_trends(*store, &card) : Status(store.error());
    if (!trends) spdlog::warn("the scorecard has no trends: {}", trends.error().message);
  }
  if (auto s = replace_file(out_dir + "/scorecard.json", card.dump(2) + "\n", 0644); !s) return s;
  return replace_file(out_dir + "/index.html", scorecard_html(card), 0644);
}

// The worst of what the scenarios would each have exited with, a scenario that could not
// run counting as an error.
int suite_exit_code(const SuiteOutcome& o) {
  if (o.interrupted) return kExitInterrupted;
  int code = kExitOk;
  for (const auto& s : o.scenarios) {
    if (s.state == "failed" || s.exit_code == kExitError) return kExitError;
    if (s.exit_code == kExitNoValidRow || (s.exit_code == kExitSomeInvalid && code == kExitOk)) code = s.exit_code;
  }
  return code;
}

// `suite diff A B`: the cells that changed beyond their intervals; exit 3 when one got worse
// (or now fails), as `diff` gates a regression.
int cmd_suite_diff(const Args& a) {
  if (a.positional.size() != 3)
    return usage_error("suite", "suite diff takes two suite directories (or scorecard.json files): A and B");
  auto before = read_scorecard(a.positional[1]);
  if (!before) return fail(before.error());
  auto after = read_scorecard(a.positional[2]);
  if (!after) return fail(after.error());
  const auto d = scorecard_diff(*before, *after, a.positional[1], a.positional[2]);
  if (a.json)
    std::cout << d.dump(2) << "\n";
  else
    std::cout << scorecard_diff_text(d);
  for (const auto& c : d["changed"])
    if (c.value("verdict", "") == "worse" || c.value("verdict", "") == "now failing") return kExitGate;
  return kExitOk;
}

// The options only `suite` takes.
struct SuiteOptions {
  std::optional<double> budget_s;  // --budget 20m
};

Refusal parse_suite_budget(SuiteOptions& into, const std::string& v) {
  into.budget_s = parse_budget(v);
  if (!into.budget_s || *into.budget_s < 60 || *into.budget_s > kMaxBudgetSeconds)
    return "--budget '" + v + "' is not a duration from 1m to 168h (e.g. 20m, 2h)";
  return {};
}

const std::vector<Option<SuiteOptions>> kSuiteOptions = {
    {"--budget", "D",
     "suite: the whole suite's time (e.g. 20m, 2h), shared among its scenarios (default: the file's budget, else "
     "20m)",
     parse_suite_budget},
};

int cmd_suite(const Args& a) {
  SuiteOptions own;
  if (auto code = parse_own("suite", kSuiteOptions, a, &own)) return *code;
  if (!a.positional.empty() && a.positional[0] == "diff") return cmd_suite_diff(a);
  if (a.positional.size() != 1) return usage_error("suite", "give one suite file (e.g. suites/seeds.toml)");
  if (!a.resume_dir.empty() && a.out_given)
    return usage_error("suite", "--resume DIR is the suite's directory: give no --out");
  auto suite = load_suite(a.positional[0]);
  if (!suite) return fail(suite.error());
  if (!need_root("suite")) return kExitError;
  SuiteInput in{*suite,
                a.resume_dir.empty() ? (a.out_given ? a.out_dir : "results/" + suite->name) : run_dir_arg(a.resume_dir),
                !a.resume_dir.empty(),
                own.budget_s,
                a.no_build,
                a.no_history,
                a.history_path};
  SuiteHooks hooks;
  hooks.starting = [](size_t i, size_t n, const SuiteScenario& sc, double share) {
    spdlog::info("suite: scenario {}/{} '{}' ({}), up to {:.0f} s", i + 1, n, sc.name, sc.topology, share);
  };
  hooks.ended = [](const ScenarioState& st) {
    if (!st.error.empty()) std::cerr << "! scenario '" << st.name << "': " << st.error << "\n";
  };
  auto outcome = run_suite(in, hooks);
  if (!outcome) return fail(outcome.error());
  if (auto s = write_scorecard(*suite, in.out_dir, outcome->scenarios, a.history_path); !s) return fail(s.error());
  for (const auto& st : outcome->scenarios)
    std::cout << st.name << ": " << st.state << (st.run.empty() ? "" : " (" + in.out_dir + "/" + st.run + ")") << ", "
              << static_cast<int>(st.wall_s) << " s of " << static_cast<int>(st.budget_s) << " s\n";
  std::cout << "scorecard: " << in.out_dir << "/index.html (" << in.out_dir << "/scorecard.json), "
            << static_cast<int>(outcome->wall_s) << " s\n";
  if (outcome->interrupted)
    std::cerr << "vpnlab: interrupted: continue with 'vpnlab suite " << suite->file << " --resume " << in.out_dir
              << "'\n";
  return suite_exit_code(*outcome);
}

}  // namespace

extern const Verb kSuiteVerb = {
    "suite",
    "suite FILE [--budget D] [--out DIR | --resume DIR] [--no-build] [--history PATH | --no-history]\n"
    "       suite diff A B [--json]",
    "Runs every scenario of a suite file (each a topology, its products and tests) in turn, each a 'vpnlab run' into\n"
    "DIR/runs/SCENARIO/, adaptive sampling to the suite's precision within its share of the budget (what is left, over "
    "the\n"
    "scenarios left). Then DIR/scorecard.json (one cell per scenario x test x product x metric: value, 95 % interval,\n"
    "verdicts against the baseline and the leader, tier, provenance, run) and DIR/index.html, a self-contained page "
    "drawn\n"
    "from it. DIR defaults to results/SUITE_NAME. After Ctrl-C, --resume DIR continues: finished scenarios are kept, "
    "the\n"
    "interrupted one resumes its run.\n"
    "Exit codes: 0 every scenario's rows valid; 4 a product x test has no valid row; 5 some rows failed; 1 a scenario\n"
    "could not run (the scorecard says why); 2 usage; 130 interrupted.\n"
    "'suite diff A B' (two suite directories or scorecard.json files: two machines, two versions) lists the cells "
    "whose\n"
    "95 % intervals in A and B are disjoint, B better or worse, and those one side lacks; exit 3 when one got worse "
    "or\n"
    "now fails, else 0.",
    {"--budget", "--out", "--resume", "--no-build", "--history", "--no-history", "--json"},
    cmd_suite,
    {{"--resume",
      "continue the suite whose directory is DIR: finished scenarios are kept, an interrupted one resumes its run"}},
    nullptr,
    own_options(kSuiteOptions)};

}  // namespace vpnlab
