// `vpnlab run FILE`: the products measured in interleaved rounds; the exit code says whether
// the run measured what was asked.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <iostream>

#include <spdlog/spdlog.h>

#include "lab/base/fs_util.h"
#include "lab/base/out_dir.h"
#include "lab/base/unique_fd.h"
#include "lab/cli/backends.h"
#include "lab/cli/cleanup.h"
#include "lab/cli/history_command.h"
#include "lab/cli/json_output.h"
#include "lab/cli/product_build.h"
#include "lab/cli/run_outputs.h"
#include "lab/cli/run_request.h"
#include "lab/cli/sampling.h"
#include "lab/cli/up_command.h"
#include "lab/cli/verbs/verb.h"
#include "lab/kernel/namespace.h"
#include "lab/model/install_layout.h"
#include "lab/results/power.h"
#include "lab/results/run_files.h"
#include "lab/results/sampling_text.h"
#include "lab/run/interrupt.h"
#include "lab/run/run_state.h"
#include "lab/run/run_timing.h"
#include "lab/run/runner.h"

namespace vpnlab {
namespace {

// run --rows-jsonl FILE: created or emptied; a FIFO needs its reader already there (never
// wait for one that may not come); a symbolic link is refused as for every output. "-" is
// stdout (nothing to open).
Result<UniqueFd> open_rows_stream(const std::string& path) {
  if (path == "-") return UniqueFd();
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    const int err = errno;
    return make_error("--rows-jsonl " + path + ": " + errno_text(err),
                      err == ELOOP ? "it is a symbolic link: give the file itself" : err == ENXIO ? "a FIFO with no reader: start the reader first" : "");
  }
  // It stays non-blocking: a reader that stalls never holds the run (ResultsCsv keeps a
  // bounded backlog for it, then drops the stream with a warning).
  return fd;
}

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
    std::cerr << "vpnlab: warning: " << c.not_valid << " of " << c.rows << " rows failed or are invalid (every product and test has valid ones)\n"
              << "hint: the reasons are in " << run_dir << "/results.csv (column 'reason')\n";
    return kExitSomeInvalid;
  }
  return 0;
}

// The usage errors of `run`, before anything is planned (exit 2).
std::optional<int> run_usage(const Args& a) {
  if (a.from_dir.empty() && a.positional.size() != 1) return usage_error("run", "give one topology file (or --from RUN_DIR)");
  if (!a.from_dir.empty() && !a.positional.empty()) return usage_error("run", "--from RUN_DIR takes the topology of that run: give no file");
  if (auto code = sampling_usage(a, "run")) return *code;
  if (a.json && a.rows_jsonl == "-")
    return usage_error("run", "--json and --rows-jsonl - both write to stdout: give --rows-jsonl a file");
  // --from repeats a run exactly: an option that would change it is refused, not ignored.
  if (!a.from_dir.empty())
    for (const auto& [given_opt, name] : {std::pair{!a.products.empty(), "--product"}, {a.samples.has_value(), "--samples"},
                                          {a.duration_s.has_value(), "--duration"}, {a.no_pin, "--no-pin"}, {a.sequential, "--sequential"},
                                          {!a.resume_dir.empty(), "--resume"}})
      if (given_opt)
        return usage_error("run", std::string(name) + " cannot be given with --from: --from repeats exactly what that run did (" +
                                      "its products, samples, duration, pinning and order); measure anew with 'vpnlab run FILE " + name + " ...'");
  return std::nullopt;
}

// What is measured: the plan and how it samples. A resumed run samples as it did
// (adaptively to its own precision and budget, or its fixed count).
struct PlannedRun {
  Plan plan;
  std::optional<SequentialPlan> sequential;
  RunRequest request;
};

Result<PlannedRun> plan_run(Args* a) {
  PlannedRun out{{}, std::nullopt, request_of(*a, a->from_dir.empty() ? a->positional[0] : "")};
  bool fixed_count = !a->from_dir.empty();
  if (!a->resume_dir.empty()) {
    if (auto s = resume_request(run_dir_arg(a->resume_dir), &out.request); !s) return s.error();
    if (!a->precision && out.request.precision) {
      a->precision = out.request.precision;
      if (out.request.max_time_s > 0) a->max_time_s = out.request.max_time_s;
    }
    fixed_count = fixed_count || !a->precision;
  }
  auto plan = a->from_dir.empty() ? plan_request(out.request) : plan_like_run(run_dir_arg(a->from_dir), &out.request);
  if (!plan) return plan.error();
  if (!a->resume_dir.empty())
    if (auto s = check_resume_plan(run_dir_arg(a->resume_dir), *plan); !s) return s.error();
  auto seq = sequential_request(sampling_request_of(*a, fixed_count), &plan.value());
  if (!seq) return seq.error();
  out.plan = std::move(*plan);
  out.sequential = std::move(*seq);
  return out;
}

// A registry product asked for by name and not built yet is built now (or refused with
// --no-build); the plan is then made again, with its binaries.
Result<PlannedRun> build_what_it_needs(Args* a, PlannedRun planned) {
  auto built = build_products_for_run(planned.plan.products, products_path(own_binary_dir()), shipped_dir(own_binary_dir()) + "/products",
                                      a->no_build, std::cerr, install_interrupt_handlers());
  if (!built) return built.error();
  if (*built == 0) return planned;
  return plan_run(a);
}

// Where the run writes (a resumed run: its own directory, its id), what it streams, and
// how its backend builds the nodes.
Result<RunOptions> run_options(const Args& a, Plan* plan, const RunRequest& request, const std::optional<SequentialPlan>& seq, UniqueFd* rows_stream) {
  RunOptions opts;
  opts.run_dir = a.out_dir + "/" + plan->run_id;
  if (!a.resume_dir.empty()) {
    std::string dir = run_dir_arg(a.resume_dir);
    if (access((dir + "/results.csv").c_str(), R_OK) != 0)
      return make_error("cannot resume " + dir + ": it has no results.csv", "give the run directory printed by the interrupted run");
    if (auto s = check_no_links_below(dir); !s) return with_context(s.error(), "cannot resume " + dir);
    plan->run_id = dir.substr(dir.rfind('/') + 1);  // run_bench takes the rows' own id, if there are rows
    opts.run_dir = dir;
    opts.resume = true;
  }
  opts.products_dir = products_path(own_binary_dir());
  opts.keys_dir = request.keys_dir;
  opts.sequential = seq;
  opts.max_time_s = plan->max_time_s;
  opts.interrupt_fd = install_interrupt_handlers();
  if (!a.rows_jsonl.empty()) {
    auto fd = open_rows_stream(a.rows_jsonl);
    if (!fd) return fd.error();
    *rows_stream = std::move(*fd);
    opts.rows_jsonl_fd = a.rows_jsonl == "-" ? STDOUT_FILENO : rows_stream->get();
    opts.rows_jsonl_name = a.rows_jsonl == "-" ? "stdout" : a.rows_jsonl;
  }
  const BackendEntry& backend = backend_entry(plan->backend);
  opts.probe_capabilities = capability_probe_for(plan->backend);
  const BackendTraits& traits = backend_traits(plan->backend);
  opts.in_guests = traits.guests;
  opts.lab_remains = [](const std::string& prefix) { return !list_namespaces(prefix).empty(); };
  opts.crr_program = helper_dir(own_binary_dir()) + "/vpnlab-crr";
  // Guests and agents on hosts see the run directory at the same path: it must be absolute.
  if (traits.guests || traits.remote_hosts) opts.run_dir = std::filesystem::absolute(opts.run_dir).lexically_normal().string();
  auto factory = backend.prepare_run(*plan, opts, helper_dir(own_binary_dir()));
  if (!factory) return factory.error();
  opts.build_nodes = std::move(*factory);
  return opts;
}

// Before the first sample: what is about to happen, and what this many samples can tell
// apart (adaptive sampling stops on precision instead).
void announce(const Args& given, const Args& a, const Plan& plan, const RunOptions& opts) {
  for (const auto& w : plan.pin_warnings) spdlog::warn("pinning: {}", w);
  if (std::find(plan.products.begin(), plan.products.end(), "baseline") == plan.products.end())
    spdlog::warn("no 'baseline' in this run: no ratio to the no-tunnel ceiling and no CPU over it (add --product baseline)");
  spdlog::info("run {}: {} product(s) x {} test(s) x {} samples of {} s; results in {}", plan.run_id, plan.products.size(), plan.tests.size(),
               plan.samples, plan.duration_s, opts.run_dir);
  if (opts.sequential) {
    std::string how = describe_sampling(plan, *opts.sequential, plan.max_time_s, nullptr);
    spdlog::info("{}", how.substr(0, how.find_last_not_of('\n') + 1));
    if (!given.precision && a.resume_dir.empty()) spdlog::info("{}", kTopologySamplingNote);
    return;
  }
  std::cerr << power_text(planned_comparisons(plan, opts.products_dir, a.vs),
                          planning_spread(plan, a.from_dir.empty() ? "" : run_dir_arg(a.from_dir), a.out_dir));
}

// The table and its notes. With --json (or rows on stdout), stdout holds only JSON; what a
// person reads goes to stderr.
void print_outcome(const Args& a, const RunReport& report, const RunOutputs& outputs, const std::string& run_dir) {
  std::ostream& out = a.json || a.rows_jsonl == "-" ? std::cerr : std::cout;
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
              << "/results.csv; once the cause is fixed, 'vpnlab report " << run_dir << "' writes the summary and report\n";
    return kExitError;
  }
  return run_exit_code(outputs.completeness, run_dir);
}

int cmd_run(const Args& given) {
  if (auto code = run_usage(given)) return *code;
  Args a = given;
  auto planned = plan_run(&a);
  if (!planned) return fail(planned.error());
  // Products are as given (NAME@TAG=/path too); rows carry the name before '='.
  const auto& products = planned->plan.products;
  if (!a.vs.empty() && std::none_of(products.begin(), products.end(), [&](const std::string& p) { return p.substr(0, p.find('=')) == a.vs; }))
    return usage_error("run", "--vs " + a.vs + ": not a product of this run (give it with --product too)");
  if (!need_root("run")) return kExitError;
  planned = build_what_it_needs(&a, std::move(*planned));
  if (!planned) return interrupted() ? kExitInterrupted : fail(planned.error());
  Plan& plan = planned->plan;
  auto lock = RunLock::acquire();
  if (!lock) return fail(lock.error());
  if (auto s = refuse_debris(); !s) return fail(s.error());
  if (auto s = refuse_kept_lab(plan.lab, plan.topology_file); !s) return fail(s.error());
  UniqueFd rows_stream;
  auto opts = run_options(a, &plan, planned->request, planned->sequential, &rows_stream);
  if (!opts) return fail(opts.error());
  announce(given, a, plan, *opts);
  auto report = run_bench(plan, *opts);
  if (!report) return fail(report.error());
  RunOutputs outputs = write_run_outputs(plan, opts->run_dir, *report, ResultView{a.vs, a.file_order});
  print_outcome(a, *report, outputs, opts->run_dir);
  if (!report->interrupted && outputs.output_error.empty() && !a.no_history) add_to_history(a.history_path, opts->run_dir);
  const int code = outcome_code(*report, outputs, opts->run_dir);
  if (a.json) std::cout << run_json(opts->run_dir, code, *report, outputs).dump(2) << "\n";
  return code;
}

}  // namespace

extern const Verb kRunVerb = {"run", "run FILE [--product NAME]... [--samples N] [--duration D] [--out DIR] [--keys DIR] [--resume RUN_DIR] [--no-pin] [--sequential] [--from RUN_DIR]\n"
     "           [--precision P [--max-time D] [--min-rounds N] [--force]] [--vs PRODUCT] [--sort fastest|file] [--backend B] [--history PATH | --no-history]\n"
     "           [--json] [--rows-jsonl FILE|-]",
     "Measures the products in interleaved rounds, each on a freshly built topology, and writes DIR/<run_id>/results.csv.\n"
     "A finished run is then added to the history ('vpnlab history'); a history that cannot take it costs the run nothing\n"
     "(a warning; 'vpnlab history import RUN' adds it later).\n"
     "Ctrl-C, SIGTERM and SIGHUP (a closed terminal) stop the sample, tear down and keep the finished rows; a closed\n"
     "pipe on stdout/stderr (| head) only stops the output: the run goes on to its end. A full disk stops the run.\n"
     "Exit codes: 0 every row valid; 4 a product x test has no valid row (a product that never came up, every sample\n"
     "failed); 5 some rows failed or are invalid, but every product x test has valid ones; 1 error (bad input, a lab\n"
     "failure, a full disk, the debris of a killed run: run 'vpnlab cleanup'); 2 usage; 130 interrupted.\n"
     "With --json the table and its notes go to stderr and stdout gets one JSON document once the run ends: the run\n"
     "directory, the exit status, why sampling stopped, the timings and summary.json's rows.",
     {"--product", "--samples", "--duration", "--out", "--keys", "--resume", "--no-pin", "--sequential", "--from", "--precision", "--max-time",
      "--min-rounds", "--force", "--vs", "--sort", "--backend", "--history", "--no-history", "--no-build", "--json", "--rows-jsonl"},
    cmd_run};

}  // namespace vpnlab
