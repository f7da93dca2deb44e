#include "lab/app/run_use_case.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <iostream>

#include "lab/app/backends.h"
#include "lab/app/cleanup.h"
#include "lab/app/history_append.h"
#include "lab/app/kept_lab.h"
#include "lab/app/product_build.h"
#include "lab/base/fs_util.h"
#include "lab/base/out_dir.h"
#include "lab/kernel/namespace.h"
#include "lab/model/backend_traits.h"
#include "lab/model/install_layout.h"
#include "lab/run/interrupt.h"
#include "lab/run/run_state.h"

namespace vpnlab {
namespace {

// run --rows-jsonl FILE: created or emptied; a FIFO needs its reader already there (never
// wait for one that may not come); a symbolic link is refused as for every output. "-" is
// stdout: a pipe or terminal is opened anew through /proc/self/fd/1, so the non-blocking
// flag the stream needs is on vpnlab's own open file, never on the caller's (a shell's
// terminal left O_NONBLOCK breaks the next program); a regular file never blocks and is
// written as it is (invalid descriptor: write to fd 1).
Result<UniqueFd> open_rows_stream(const std::string& path) {
  if (path == "-") {
    struct stat st {};
    if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode)) return UniqueFd();
    UniqueFd own(open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!own.valid())
      return make_error("--rows-jsonl -: cannot open stdout anew: " + errno_text(errno),
                        "give --rows-jsonl a file or a FIFO instead");
    return own;
  }
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    const int err = errno;
    return make_error("--rows-jsonl " + path + ": " + errno_text(err),
                      err == ELOOP   ? "it is a symbolic link: give the file itself"
                      : err == ENXIO ? "a FIFO with no reader: start the reader first"
                                     : "");
  }
  // It stays non-blocking: a reader that stalls never holds the run (ResultsCsv keeps a
  // bounded backlog for it, then drops the stream with a warning).
  return fd;
}

// A registry product asked for by name and not built yet is built now (or refused with
// --no-build); the plan is then made again, with its binaries.
Result<PlannedRun> build_what_it_needs(RunInput* input, PlannedRun planned) {
  auto built = build_products_for_run(planned.plan.products, products_path(own_binary_dir()),
                                      shipped_dir(own_binary_dir()) + "/products", input->no_build, std::cerr,
                                      install_interrupt_handlers());
  if (!built) return built.error();
  if (*built == 0) return planned;
  return plan_run(input);
}

// A resumed run keeps its own directory and id: the rows it has are checked first.
Status resume_into(const std::string& dir, Plan* plan, RunOptions* opts) {
  if (access((dir + "/results.csv").c_str(), R_OK) != 0)
    return make_error("cannot resume " + dir + ": it has no results.csv",
                      "give the run directory printed by the interrupted run");
  if (auto s = check_no_links_below(dir); !s) return with_context(s.error(), "cannot resume " + dir);
  plan->run_id = dir.substr(dir.rfind('/') + 1);  // run_bench takes the rows' own id, if there are rows
  opts->run_dir = dir;
  opts->resume = true;
  return ok_status();
}

// Where the run writes, what it streams, and how its backend builds the nodes.
Result<RunOptions> run_options(const RunInput& input, Plan* plan, const PlannedRun& planned, UniqueFd* rows_stream) {
  RunOptions opts;
  opts.run_dir = input.out_dir + "/" + plan->run_id;
  if (!input.resume_dir.empty())
    if (auto s = resume_into(input.resume_dir, plan, &opts); !s) return s.error();
  opts.products_dir = products_path(own_binary_dir());
  opts.keys_dir = planned.request.keys_dir;
  opts.keys_from = planned.request.keys_from;
  opts.sequential = planned.sequential;
  opts.max_time_s = plan->max_time_s;
  opts.interrupt_fd = install_interrupt_handlers();
  if (!input.rows_jsonl.empty()) {
    auto fd = open_rows_stream(input.rows_jsonl);
    if (!fd) return fd.error();
    *rows_stream = std::move(*fd);
    opts.rows_jsonl_fd = rows_stream->valid() ? rows_stream->get() : STDOUT_FILENO;
    opts.rows_jsonl_name = input.rows_jsonl == "-" ? "stdout" : input.rows_jsonl;
  }
  const BackendEntry& backend = backend_entry(plan->backend);
  opts.probe_capabilities = capability_probe_for(plan->backend);
  const BackendTraits& traits = backend_traits(plan->backend);
  opts.in_guests = traits.guests;
  opts.lab_remains = [](const std::string& prefix) { return !list_namespaces(prefix).empty(); };
  opts.crr_program = helper_dir(own_binary_dir()) + "/vpnlab-crr";
  // Guests and agents on hosts see the run directory at the same path: it must be absolute.
  if (traits.guests || traits.remote_hosts)
    opts.run_dir = std::filesystem::absolute(opts.run_dir).lexically_normal().string();
  auto factory =
      backend.prepare_run(*plan, BackendContext{opts.products_dir, helper_dir(own_binary_dir()), opts.interrupt_fd});
  if (!factory) return factory.error();
  opts.build_nodes = std::move(*factory);
  return opts;
}

}  // namespace

Result<PlannedRun> plan_run(RunInput* input) {
  PlannedRun out{{}, std::nullopt, input->request};
  if (!input->resume_dir.empty()) {
    if (auto s = resume_request(input->resume_dir, &out.request); !s) return s.error();
    if (auto s = check_resume_topology(input->resume_dir, out.request.topology_file); !s) return s.error();
    if (!input->sampling.precision && out.request.precision) {
      input->sampling.precision = out.request.precision;
      if (out.request.max_time_s > 0) input->sampling.max_time_s = out.request.max_time_s;
    }
    // Without a precision of its own or asked, a resumed run measures its fixed count.
    if (!input->sampling.precision) input->sampling.samples_given = true;
  }
  auto plan = input->from_dir.empty() ? plan_request(out.request) : plan_like_run(input->from_dir, &out.request);
  if (!plan) return plan.error();
  if (!input->resume_dir.empty())
    if (auto s = check_resume_plan(input->resume_dir, *plan); !s) return s.error();
  auto seq = sequential_request(input->sampling, &plan.value());
  if (!seq) return seq.error();
  out.plan = std::move(*plan);
  out.sequential = std::move(*seq);
  return out;
}

Result<RunOutcome> execute_run(RunInput* input, PlannedRun planned, const RunHooks& hooks) {
  auto built = build_what_it_needs(input, std::move(planned));
  if (!built && interrupted()) return RunOutcome{true, "", {}, {}};
  if (!built) return built.error();
  Plan& plan = built->plan;
  auto lock = RunLock::acquire();
  if (!lock) return lock.error();
  if (auto s = refuse_debris(); !s) return s.error();
  if (auto s = refuse_kept_lab(plan.lab, plan.topology_file); !s) return s.error();
  UniqueFd rows_stream;
  auto opts = run_options(*input, &plan, *built, &rows_stream);
  if (!opts) return opts.error();
  if (hooks.announce) hooks.announce(plan, *opts);
  auto report = run_bench(plan, *opts);
  if (!report) return report.error();
  RunOutcome outcome{false, opts->run_dir, std::move(*report), {}};
  outcome.outputs = write_run_outputs(plan, outcome.run_dir, outcome.report, input->view);
  if (hooks.finished) hooks.finished(outcome);
  // Only a whole run goes into the history (an interrupted one is resumed first).
  if (!outcome.report.interrupted && outcome.outputs.output_error.empty() && !input->no_history)
    add_to_history(input->history_path, outcome.run_dir);
  return outcome;
}

}  // namespace vpnlab
