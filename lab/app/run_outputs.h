// What a run leaves besides its rows: summary.txt/.json, audit.json and report.md/.html,
// all computed from results.csv as written (the source of truth: `vpnlab report` gives the
// same), and whether every product x test has a valid row.
#pragma once
#include <string>

#include "lab/model/plan.h"
#include "lab/results/summary.h"
#include "lab/run/runner.h"

namespace vpnlab {

struct RunOutputs {
  std::string summary;        // the table, as summary.txt holds it
  Completeness completeness;  // of results.csv as written, against the plan's products x tests
  std::string output_error;   // what could not be written (the rows are complete whatever happens)
};

// The table `run` prints and summary.txt holds: the summary (fastest first per test unless
// view.file_order), the shaped links' shares (from environment.json, when it reads), with
// view.vs every product over that one, and last the conclusion: per test the fastest and
// the cheapest tunnel over their runner-up.
std::string run_table(const std::string& run_dir, const std::vector<SampleRow>& rows, const ResultView& view);

RunOutputs write_run_outputs(const Plan& plan, const std::string& run_dir, const RunReport& report,
                             const ResultView& view = {});

}  // namespace vpnlab
