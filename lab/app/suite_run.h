// `vpnlab suite FILE`'s use case: every scenario of a suite run in turn into one output
// directory, the time budget shared among them, and a suite that was stopped continued
// without measuring again what it finished. The scorecard is made from what this leaves
// (lab/results/scorecard.h); the CLI prints.
//
// DIR/progress.json says, per scenario, its run directory (runs/SCENARIO/RUN_ID) and whether
// it finished; it is replaced whole after every change, so a kill leaves the last state.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lab/app/run_use_case.h"
#include "lab/model/suite.h"

namespace vpnlab {

struct SuiteInput {
  Suite suite;
  std::string out_dir;
  bool resume = false;             // continue the suite already in out_dir
  std::optional<double> budget_s;  // --budget (else the file's, else kDefaultSuiteBudget)
  bool no_build = false;
  bool no_history = false;
  std::string history_path;
};

inline constexpr double kDefaultSuiteBudget = 20 * 60;

// One scenario as it stands. state: "done" (its run ended, whatever its rows say), "running"
// (started, not ended: a kill; --resume continues its run), "failed" (no run: the error says
// why), "pending".
struct ScenarioState {
  std::string name;
  std::string state = "pending";
  std::string run;  // "runs/NAME/RUN_ID", relative to the output directory ("" = none yet)
  std::string error;
  double budget_s = 0;  // its share when it started
  double wall_s = 0;
  int exit_code = 0;  // what 'vpnlab run' would have exited with
};

struct SuiteHooks {
  // Before scenario i of n, with its share of what is left of the budget.
  std::function<void(size_t i, size_t n, const SuiteScenario&, double share_s)> starting;
  RunHooks run;
  std::function<void(const ScenarioState&)> ended;
};

struct SuiteOutcome {
  std::vector<ScenarioState> scenarios;
  bool interrupted = false;
  double wall_s = 0;
};

// Runs what is not done. An error is the output directory's or the progress file's; a
// scenario that cannot run is a "failed" state and the suite goes on.
Result<SuiteOutcome> run_suite(const SuiteInput& input, const SuiteHooks& hooks);

// DIR/progress.json read back, checked (a run path must be runs/NAME/RUN_ID of a scenario of
// `suite`); an empty list when there is none.
Result<std::vector<ScenarioState>> read_suite_progress(const std::string& out_dir, const Suite& suite);

// Said before the first scenario when the budget cannot hold a first look (3 rounds) of
// every scenario left: how many rounds of each it holds, and the budget that would give 3
// ("" when it holds them). `round_s`: one round of every scenario left, as planned.
std::string budget_note(double budget_s, double round_s);

}  // namespace vpnlab
