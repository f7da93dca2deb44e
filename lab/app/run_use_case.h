// `vpnlab run`'s use case, below the command line: what was asked (RunInput, checked for
// usage by the caller) becomes what happened (RunOutcome). Here: resume and rerun, the
// registry builds a run needs, the run lock, the refusals of debris and of a kept lab, the
// run's options and backend, the runner, what a finished run writes, and the history
// append. The caller prints; the hooks let it speak at the moments a person expects.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "lab/app/run_outputs.h"
#include "lab/app/run_request.h"
#include "lab/app/sampling.h"
#include "lab/base/result.h"
#include "lab/base/sequential.h"
#include "lab/base/unique_fd.h"
#include "lab/model/plan.h"
#include "lab/results/summary.h"
#include "lab/run/run_options.h"
#include "lab/run/runner.h"

namespace vpnlab {

struct RunInput {
  RunRequest request;  // the file (empty with from_dir), products, samples, duration, pinning, order, keys, backend
  SamplingRequest sampling;  // adaptive sampling as asked (a resumed run's own when none is)
  std::string from_dir;      // --from: repeat that run exactly
  std::string resume_dir;    // --resume: add the missing rows to that run
  std::string out_dir;
  std::string rows_jsonl;  // --rows-jsonl: a file, "-" for stdout, "" for none
  bool no_build = false;   // a registry product not built yet is refused instead of built
  bool no_history = false;
  std::string history_path;  // "" = the default history
  ResultView view;           // --vs, --sort file: how the summary is shown
};

// What is measured: the plan and how it samples.
struct PlannedRun {
  Plan plan;
  std::optional<SequentialPlan> sequential;
  RunRequest request;
};

struct RunOutcome {
  bool stopped_in_build = false;  // Ctrl-C while a registry product was built: nothing ran
  std::string run_dir;
  RunReport report;
  RunOutputs outputs;
};

struct RunHooks {
  // Before the first sample: the plan as it will run, and its options.
  std::function<void(const Plan&, const RunOptions&)> announce;
  // Once the rows are in and the outputs written, before the history append.
  std::function<void(const RunOutcome&)> finished;
};

// The plan (a resumed run samples as it did: its own precision and budget when none is
// asked, else its fixed count). Fills input->sampling from a resumed run.
Result<PlannedRun> plan_run(RunInput* input);

// Builds what the plan needs, takes the lock, refuses debris and a kept lab, runs, writes
// the outputs and appends to the history. An error is the lab's or the input's (the rows
// made before it are kept); an interrupted build is an outcome, not an error.
Result<RunOutcome> execute_run(RunInput* input, PlannedRun planned, const RunHooks& hooks);

}  // namespace vpnlab
