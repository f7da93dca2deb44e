// `vpnlab run FILE`: the products measured in interleaved rounds; the exit code says whether
// the run measured what was asked.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>

#include <spdlog/spdlog.h>

#include "lab/app/run_use_case.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"
#include "lab/results/power.h"
#include "lab/results/run_files.h"
#include "lab/results/sampling_text.h"
#include "lab/run/interrupt.h"
#include "lab/run/progress.h"
#include "lab/run/run_timing.h"

namespace vpnlab {
namespace {

// The exit code says whether the run measured what was asked: CI turns red on a product
// that never came up, not only on a slowdown.
int run_exit_code(const Completeness& c, const std::string& run_dir) {
  if (!c.without_valid.empty()) {
    std::string pairs;
    for (const auto& p : c.without_valid) pairs += (pairs.empty() ? "" : ", ") + p;
    std::cerr << "vpnlab: error: no valid row for " << pairs << "\nhint: the reasons are in " << run_dir
              << "/results.csv (column 'reason') and the logs in " << run_dir << "/logs/\n";
    return kExitNoValidRow;
  }
  if (c.not_valid > 0) {
    std::cerr << "vpnlab: warning: " << c.not_valid << " of " << c.rows
              << " rows failed or are invalid (every product and test has valid ones)\n"
              << "hint: the reasons are in " << run_dir << "/results.csv (column 'reason')\n";
    return kExitSomeInvalid;
  }
  return 0;
}

// The options only `run` takes.
struct RunVerbOptions {
  std::string rows_jsonl;  // --rows-jsonl FILE|-: every row as a JSON line
};

const std::vector<Option<RunVerbOptions>> kRunOptions = {
    {"--rows-jsonl", "FILE",
     "run: also write every row, as it goes into results.csv, as one JSON object per line to FILE ('-': stdout, "
     "and the table goes to stderr); a stream that fails ends with a warning, the run goes on",
     set_text<&RunVerbOptions::rows_jsonl>},
};

// The usage errors of `run`, before anything is planned (exit 2).
std::optional<int> run_usage(const Args& a, const RunVerbOptions& own) {
  if (a.from_dir.empty() && a.positional.size() != 1)
    return usage_error("run", "give one topology file (or --from RUN_DIR)");
  if (!a.from_dir.empty() && !a.positional.empty())
    return usage_error("run", "--from RUN_DIR takes the topology of that run: give no file");
  if (auto code = sampling_usage(a, "run")) return *code;
  if (a.json && own.rows_jsonl == "-")
    return usage_error("run", "--json and --rows-jsonl - both write to stdout: give --rows-jsonl a file");
  // --from repeats a run exactly: an option that would change it is refused, not ignored.
  if (!a.from_dir.empty())
    for (const auto& [given_opt, name] : {std::pair{!a.products.empty(), "--product"},
                                          {a.samples.has_value(), "--samples"},
                                          {a.duration_s.has_value(), "--duration"},
                                          {a.no_pin, "--no-pin"},
                                          {a.sequential, "--sequential"},
                                          {!a.resume_dir.empty(), "--resume"},
                                          {!a.tests.empty(), "--test"}})
      if (given_opt)
        return usage_error(
            "run", std::string(name) + " cannot be given with --from: --from repeats exactly what that run did (" +
                       "its products, samples, duration, pinning and order); measure anew with 'vpnlab run FILE " +
                       name + " ...'");
  return std::nullopt;
}

// "estimated wall time 4m12s: until about 00:14 (the plan's estimate; ...)": when the run
// will end, in local time, from the same estimate `plan` states. A resumed run has `done`
// of its rows already: the estimate is the share of the samples left.
std::string end_estimate(const Plan& plan, bool adaptive, std::chrono::system_clock::time_point now, size_t done) {
  const size_t total = plan.products.size() * plan.tests.size() * static_cast<size_t>(std::max(plan.samples, 1));
  const size_t left = total > done ? total - done : 0;
  const double s =
      plan.estimated_seconds() * (done > 0 && total > 0 ? static_cast<double>(left) / static_cast<double>(total) : 1.0);
  const std::time_t end = std::chrono::system_clock::to_time_t(now + std::chrono::seconds(std::llround(s)));
  std::tm local{};
  localtime_r(&end, &local);
  char at[16];
  std::strftime(at, sizeof at, "%H:%M", &local);
  const std::string what =
      done > 0 ? " for the " + std::to_string(left) + " of " + std::to_string(total) + " samples left" : "";
  return std::string("estimated wall time ") + (adaptive ? "at most " : "") + format_seconds(s) + what +
         ": until about " + at + (adaptive ? " (adaptive sampling stops sooner once every ratio is known)" : "");
}

// The rows a resumed run already has (results.csv as the runner will read it).
size_t rows_done(const Args& a, const RunOptions& opts) {
  if (a.resume_dir.empty()) return 0;
  auto rows = read_results_csv(opts.run_dir + "/results.csv", /*drop_torn_tail=*/true);
  return rows ? rows->size() : 0;
}

// Before the first sample: what is about to happen, and what this many samples can tell
// apart (adaptive sampling stops on precision instead).
void announce(const Args& a, const Plan& plan, const RunOptions& opts) {
  for (const auto& w : plan.pin_warnings) spdlog::warn("pinning: {}", w);
  if (std::find(plan.products.begin(), plan.products.end(), "baseline") == plan.products.end())
    spdlog::warn(
        "no 'baseline' in this run: no ratio to the no-tunnel ceiling and no CPU over it (add --product baseline)");
  spdlog::info("run {}: {} product(s) x {} test(s) x {} samples of {} s; results in {}", plan.run_id,
               plan.products.size(), plan.tests.size(), plan.samples, plan.duration_s, opts.run_dir);
  spdlog::info("{}",
               end_estimate(plan, opts.sequential.has_value(), std::chrono::system_clock::now(), rows_done(a, opts)));
  if (opts.sequential) {
    std::string how = describe_sampling(plan, *opts.sequential, plan.max_time_s, nullptr);
    spdlog::info("{}", how.substr(0, how.find_last_not_of('\n') + 1));
    if (!a.precision && a.resume_dir.empty() && !plan.adaptive_by_default) spdlog::info("{}", kTopologySamplingNote);
    return;
  }
  std::cerr << power_text(planned_comparisons(plan, opts.products_dir, a.vs),
                          planning_spread(plan, a.from_dir.empty() ? "" : run_dir_arg(a.from_dir), a.out_dir));
}

// The table and its notes. With --json (or rows on stdout), stdout holds only JSON; what a
// person reads goes to stderr.
void print_outcome(const Args& a, const RunVerbOptions& own, const RunReport& report, const RunOutputs& outputs,
                   const std::string& run_dir) {
  std::ostream& out = a.json || own.rows_jsonl == "-" ? std::cerr : std::cout;
  out << "\n" << outputs.summary;
  if (report.sampling)
    if (auto env = read_environment(run_dir, /*required=*/false); env) out << sampling_line(*env) << "\n";
  if (const std::string timing = timing_line(report.timing); !timing.empty()) out << timing << "\n";
  for (const auto& p : report.products) {
    if (!p.failure.empty())
      out << "! " << p.product << (p.started ? ": a bring-up failed (its round's rows say so): " : ": never came up: ")
          << p.failure.substr(0, p.failure.find('\n')) << "\n";
    for (const auto& l : p.leftovers) out << "! " << p.product << " left behind: " << l << "\n";
  }
  out << "results: " << run_dir << "/results.csv\n";
}

int outcome_code(const RunReport& report, const RunOutputs& outputs, const std::string& run_dir) {
  if (report.interrupted) {
    std::cerr << "vpnlab: interrupted: finished samples are kept in " << run_dir << "/results.csv\n";
    return kExitInterrupted;
  }
  if (!outputs.output_error.empty()) {
    std::cerr << "vpnlab: error: " << outputs.output_error << "\nhint: every row is in " << run_dir
              << "/results.csv; once the cause is fixed, 'vpnlab report " << run_dir
              << "' writes the summary and report\n";
    return kExitError;
  }
  return run_exit_code(outputs.completeness, run_dir);
}

// What the command line asked, as the use case takes it.
RunInput run_input(const Args& a, const RunVerbOptions& own) {
  RunInput in;
  in.request = request_of(a, a.from_dir.empty() ? a.positional[0] : "");
  in.sampling = sampling_request_of(a, /*rerun=*/!a.from_dir.empty());
  in.from_dir = a.from_dir.empty() ? "" : run_dir_arg(a.from_dir);
  in.resume_dir = a.resume_dir.empty() ? "" : run_dir_arg(a.resume_dir);
  in.out_dir = a.out_dir;
  in.rows_jsonl = own.rows_jsonl;
  in.no_build = a.no_build;
  in.no_history = a.no_history;
  in.history_path = a.history_path;
  in.view = ResultView{a.vs, a.file_order};
  return in;
}

int cmd_run(const Args& a) {
  RunVerbOptions own;
  if (auto code = parse_own("run", kRunOptions, a, &own)) return *code;
  if (auto code = run_usage(a, own)) return *code;
  RunInput input = run_input(a, own);
  auto planned = plan_run(&input);
  if (!planned) return fail(planned.error());
  // Products are as given (NAME@TAG=/path too); rows carry the name before '='.
  const auto& products = planned->plan.products;
  if (!a.vs.empty() && std::none_of(products.begin(), products.end(),
                                    [&](const std::string& p) { return p.substr(0, p.find('=')) == a.vs; }))
    return usage_error("run", "--vs " + a.vs + ": not a product of this run (give it with --product too)");
  if (!need_root("run")) return kExitError;
  RunHooks hooks;
  hooks.announce = [&](const Plan& plan, const RunOptions& opts) { announce(a, plan, opts); };
  hooks.finished = [&](const RunOutcome& o) { print_outcome(a, own, o.report, o.outputs, o.run_dir); };
  auto outcome = execute_run(&input, std::move(*planned), hooks);
  if (!outcome) return fail(outcome.error());
  if (outcome->stopped_in_build) return kExitInterrupted;
  const int code = outcome_code(outcome->report, outcome->outputs, outcome->run_dir);
  if (a.json) std::cout << run_json(outcome->run_dir, code, outcome->report, outcome->outputs).dump(2) << "\n";
  return code;
}

}  // namespace

extern const Verb kRunVerb = {
    "run",
    "run FILE [--product NAME]... [--test T]... [--samples N] [--duration D] [--out DIR] [--keys DIR] [--resume "
    "RUN_DIR] [--no-pin] [--sequential] [--from RUN_DIR]\n"
    "           [--precision P [--max-time D] [--min-rounds N] [--force]] [--vs PRODUCT] [--sort fastest|file] "
    "[--backend B] [--history PATH | --no-history]\n"
    "           [--json] [--rows-jsonl FILE|-]",
    "Measures the products in interleaved rounds, each on a freshly built topology, and writes "
    "DIR/<run_id>/results.csv.\n"
    "A finished run is then added to the history ('vpnlab history'); a history that cannot take it costs the run "
    "nothing\n"
    "(a warning; 'vpnlab history import RUN' adds it later).\n"
    "Ctrl-C, SIGTERM and SIGHUP (a closed terminal) stop the sample, tear down and keep the finished rows; a closed\n"
    "pipe on stdout/stderr (| head) only stops the output: the run goes on to its end. A full disk stops the run.\n"
    "Exit codes: 0 every row valid; 4 a product x test has no valid row (a product that never came up, every sample\n"
    "failed); 5 some rows failed or are invalid, but every product x test has valid ones; 1 error (bad input, a lab\n"
    "failure, a full disk, the debris of a killed run: run 'vpnlab cleanup'); 2 usage; 130 interrupted.\n"
    "With --json the table and its notes go to stderr and stdout gets one JSON document once the run ends: the run\n"
    "directory, the exit status, why sampling stopped, the timings and summary.json's rows.",
    {"--product",    "--test",    "--samples",    "--duration", "--out",        "--keys",      "--resume", "--no-pin",
     "--sequential", "--from",    "--precision",  "--max-time", "--min-rounds", "--force",     "--vs",     "--sort",
     "--backend",    "--history", "--no-history", "--no-build", "--json",       "--rows-jsonl"},
    cmd_run,
    {},
    nullptr,
    own_options(kRunOptions)};

}  // namespace vpnlab
