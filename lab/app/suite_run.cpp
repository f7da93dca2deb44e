#include "lab/app/suite_run.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <regex>

#include <spdlog/spdlog.h>

#include "lab/base/exit_codes.h"
#include "lab/base/fault.h"
#include "lab/base/fs_util.h"
#include "lab/base/json_number.h"
#include "lab/base/terminal_text.h"
#include "lab/results/run_files.h"
#include "lab/run/interrupt.h"

namespace vpnlab {

namespace {

using nlohmann::json;
using clock_type = std::chrono::steady_clock;

const char* kProgressFile = "progress.json";

json progress_json(const Suite& suite, const std::vector<ScenarioState>& states) {
  json scenarios = json::array();
  for (const auto& s : states)
    scenarios.push_back({{"name", s.name},
                         {"state", s.state},
                         {"run", s.run},
                         {"error", s.error},
                         {"budget_s", s.budget_s},
                         {"wall_s", s.wall_s},
                         {"exit_code", s.exit_code}});
  return {{"schema", 1}, {"suite", suite.name}, {"file", suite.file}, {"scenarios", scenarios}};
}

Status save_progress(const SuiteInput& in, const std::vector<ScenarioState>& states) {
  return replace_file(in.out_dir + "/" + kProgressFile, progress_json(in.suite, states).dump(2) + "\n", 0644);
}

// What 'vpnlab run' would have exited with, from what it wrote.
int exit_code_of(const RunOutcome& o) {
  if (o.report.interrupted) return kExitInterrupted;
  if (!o.outputs.output_error.empty()) return kExitError;
  if (!o.outputs.completeness.without_valid.empty()) return kExitNoValidRow;
  if (o.outputs.completeness.not_valid > 0) return kExitSomeInvalid;
  return kExitOk;
}

// A fresh suite needs an output directory that holds no suite yet: measuring into another
// suite's runs would mix them on one page.
Status prepare_out_dir(const SuiteInput& in) {
  if (auto s = make_dirs(in.out_dir + "/runs", 0755); !s) return s.error();
  if (in.resume) return ok_status();
  struct stat st {};
  if (lstat((in.out_dir + "/" + kProgressFile).c_str(), &st) == 0)
    return make_error(
        in.out_dir + " holds a suite already (" + kProgressFile + ")",
        "continue it with 'vpnlab suite " + in.suite.file + " --resume " + in.out_dir + "', or give another --out");
  return ok_status();
}

// The run input of one scenario: precision as the suite asks, at most `share_s` of time.
RunInput scenario_input(const SuiteInput& in, const SuiteScenario& sc, const ScenarioState& st, double share_s) {
  RunInput r;
  r.request.topology_file = sc.topology;
  r.request.products = sc.products;
  r.request.tests = sc.tests;
  r.sampling.precision = in.suite.precision;
  r.sampling.max_time_s = std::max(1.0, share_s);  // 0 would mean no limit: at least one round, then "time out"
  // A sweep whose share holds fewer rounds than a first look needs is measured as far as it
  // goes (the scorecard says it timed out), not refused after the others have run.
  r.sampling.force = true;
  r.out_dir = in.out_dir + "/runs/" + sc.name;
  // A run killed before its first row has nothing to resume: it starts again.
  if (st.state == "running" && !st.run.empty() &&
      access((in.out_dir + "/" + st.run + "/results.csv").c_str(), F_OK) == 0)
    r.resume_dir = in.out_dir + "/" + st.run;
  r.no_build = in.no_build;
  r.no_history = in.no_history;
  r.history_path = in.history_path;
  return r;
}

// One scenario, start to end; its state says how it went.
void run_scenario(const SuiteInput& in, const SuiteScenario& sc, double share_s, const SuiteHooks& hooks,
                  std::vector<ScenarioState>* states, ScenarioState* st, bool* interrupted) {
  const auto t0 = clock_type::now();
  st->budget_s = share_s;
  RunInput input = scenario_input(in, sc, *st, share_s);
  RunHooks run_hooks = hooks.run;
  run_hooks.announce = [&](const Plan& plan, const RunOptions& opts) {
    st->state = "running";
    st->run = "runs/" + sc.name + "/" + plan.run_id;
    (void)opts;
    (void)save_progress(in, *states);  // a kill from here on resumes this run
    fault_point("suite-scenario");
    if (hooks.run.announce) hooks.run.announce(plan, opts);
  };
  auto planned = plan_run(&input);
  Result<RunOutcome> outcome =
      planned ? execute_run(&input, std::move(*planned), run_hooks) : Result<RunOutcome>(planned.error());
  st->wall_s += std::chrono::duration<double>(clock_type::now() - t0).count();
  if (!outcome) {
    st->state = st->run.empty() ? "failed" : "done";
    st->error = outcome.error().format();
    st->exit_code = kExitError;
  } else if (outcome->stopped_in_build || outcome->report.interrupted) {
    *interrupted = true;
    st->exit_code = kExitInterrupted;
  } else {
    st->state = "done";
    st->error.clear();
    st->exit_code = exit_code_of(*outcome);
  }
  if (vpnlab::interrupted()) *interrupted = true;
}

// Every scenario not done, planned before anything is measured: a scenario that cannot run
// (a topology with a mistake, a product missing) fails now, not after the others' minutes;
// the others weigh what a round of theirs costs, so each gets rounds, not equal seconds.
std::vector<double> plan_weights(const SuiteInput& in, std::vector<ScenarioState>* states) {
  // What planning warns of ("skipping X", "test not run") is said when the scenario runs and
  // plans again: once, beside its own progress, not twice.
  struct Quiet {
    spdlog::level::level_enum was = spdlog::get_level();
    Quiet() { spdlog::set_level(spdlog::level::err); }
    ~Quiet() { spdlog::set_level(was); }
  } quiet;
  std::vector<double> weights(states->size(), 0);
  for (size_t i = 0; i < states->size(); ++i) {
    ScenarioState& st = (*states)[i];
    if (st.state == "done") continue;
    RunInput input = scenario_input(in, in.suite.scenarios[i], ScenarioState{st.name}, 0);
    input.sampling.max_time_s.reset();
    auto planned = plan_run(&input);
    if (!planned) {
      st.state = "failed";
      st.error = planned.error().format();
      st.exit_code = kExitError;
      continue;
    }
    const Plan& plan = planned->plan;
    weights[i] = std::max(1.0, plan.estimated_round_seconds());
  }
  return weights;
}

}  // namespace

Result<std::vector<ScenarioState>> read_suite_progress(const std::string& out_dir, const Suite& suite) {
  const std::string file = out_dir + "/" + kProgressFile;
  auto j = read_json_file(file,
                          {{"/suite", JsonType::string},
                           {"/scenarios", JsonType::array},
                           {"/scenarios/*/name", JsonType::string},
                           {"/scenarios/*/state", JsonType::string},
                           {"/scenarios/*/run", JsonType::string},
                           {"/scenarios/*/error", JsonType::string},
                           {"/scenarios/*/budget_s", JsonType::number},
                           {"/scenarios/*/wall_s", JsonType::number},
                           {"/scenarios/*/exit_code", JsonType::integer}},
                          /*required=*/false);
  if (!j) return j.error();
  std::vector<ScenarioState> out;
  if (!j->contains("scenarios")) return out;
  if (const std::string name = j->value("suite", ""); name != suite.name)
    return make_error(
        file + ": this directory holds suite '" + terminal_safe(name) + "', not '" + suite.name + "' of " + suite.file,
        "resume with the suite file that made it, or give another --out");
  static const std::regex run_path("runs/([a-z0-9][a-z0-9-]*)/[0-9]{8}-[0-9]{6}-[0-9a-f]{4}");
  for (const auto& s : (*j)["scenarios"]) {
    ScenarioState st;
    st.name = s.value("name", "");
    st.state = s.value("state", "pending");
    st.run = s.value("run", "");
    st.error = s.value("error", "");
    st.budget_s = s.value("budget_s", 0.0);
    st.wall_s = s.value("wall_s", 0.0);
    st.exit_code = whole_number_or(s, "exit_code", 0);
    const bool known = std::any_of(suite.scenarios.begin(), suite.scenarios.end(),
                                   [&](const SuiteScenario& sc) { return sc.name == st.name; });
    std::smatch m;
    if (!known)
      return make_error(file + ": scenario '" + terminal_safe(st.name) + "' is not in " + suite.file,
                        "resume with the suite file that made it");
    if (!st.run.empty() && (!std::regex_match(st.run, m, run_path) || m[1] != st.name))
      return make_error(
          file + ": scenario '" + st.name + "': run '" + terminal_safe(st.run) + "' is not runs/" + st.name + "/RUN_ID",
          "this file was not written by vpnlab suite: remove the directory and start again");
    if (st.state != "done" && st.state != "running" && st.state != "failed" && st.state != "pending")
      return make_error(file + ": scenario '" + st.name + "': unknown state '" + terminal_safe(st.state) + "'", "");
    out.push_back(std::move(st));
  }
  return out;
}

Result<SuiteOutcome> run_suite(const SuiteInput& in, const SuiteHooks& hooks) {
  if (auto s = prepare_out_dir(in); !s) return s.error();
  std::vector<ScenarioState> states;
  auto earlier = read_suite_progress(in.out_dir, in.suite);
  if (!earlier) return earlier.error();
  for (const auto& sc : in.suite.scenarios) {
    auto it = std::find_if(earlier->begin(), earlier->end(), [&](const ScenarioState& s) { return s.name == sc.name; });
    states.push_back(it != earlier->end() ? *it : ScenarioState{sc.name});
  }
  for (auto& st : states)
    if (st.state == "failed") st.state = "pending";  // tried again: the cause may be mended
  const auto t0 = clock_type::now();
  const std::vector<double> weights = plan_weights(in, &states);
  if (auto s = save_progress(in, states); !s) return s.error();
  if (hooks.ended)
    for (const auto& st : states)
      if (st.state == "failed") hooks.ended(st);  // said before the others' minutes, not after
  SuiteOutcome out;
  double budget = in.budget_s.value_or(in.suite.budget_s.value_or(kDefaultSuiteBudget));
  for (const auto& st : states) budget -= st.state == "done" ? st.wall_s : 0;  // a resumed suite keeps to what is left
  double round_s = 0;
  for (size_t i = 0; i < states.size(); ++i)
    round_s += states[i].state == "done" || states[i].state == "failed" ? 0 : weights[i];
  if (const std::string note = budget_note(budget, round_s); !note.empty()) spdlog::warn("{}", note);
  for (size_t i = 0; i < states.size(); ++i) {
    ScenarioState& st = states[i];
    if (st.state == "done" || st.state == "failed") continue;
    // What is left of the budget, shared by what a round costs among the scenarios left.
    const double used = std::chrono::duration<double>(clock_type::now() - t0).count();
    double weight_left = 0;
    for (size_t k = i; k < states.size(); ++k)
      if (states[k].state != "done" && states[k].state != "failed") weight_left += weights[k];
    const double share = std::max(0.0, budget - used) * weights[i] / std::max(1.0, weight_left);
    if (hooks.starting) hooks.starting(i, states.size(), in.suite.scenarios[i], share);
    run_scenario(in, in.suite.scenarios[i], share, hooks, &states, &st, &out.interrupted);
    if (auto s = save_progress(in, states); !s) return s.error();
    if (hooks.ended) hooks.ended(st);
    if (out.interrupted) break;
  }
  out.scenarios = states;
  out.wall_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  return out;
}

std::string budget_note(double budget_s, double round_s) {
  constexpr double kFirstLook = 3;  // the rounds adaptive sampling's first look needs
  if (round_s <= 0 || budget_s >= kFirstLook * round_s) return "";
  return fmt::format(
      "suite: {:.0f} min hold about {:.1f} rounds of every scenario left (one round of each: about {:.0f} s as "
      "planned); a first look needs 3 "
      "rounds: give --budget {:.0f}m or more, or fewer scenarios",
      budget_s / 60, budget_s / round_s, round_s, std::ceil(kFirstLook * round_s / 60));
}

}  // namespace vpnlab
