// The bench runner: checks every product first, records provenance, then runs rounds
// (interleaved: sample r of every product in turn; sequential: all samples of one product,
// then the next), each product on a topology built from nothing and torn down after it
// (product_round.h). Its tables come afterwards, from results.csv as written
// (lab/app/run_outputs.h).
#pragma once
#include <string>
#include <vector>

#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/record/results_csv.h"
#include "lab/run/adaptive.h"
#include "lab/run/product_session.h"
#include "lab/run/run_options.h"
#include "lab/run/run_timing.h"
#include "lab/run/sample.h"

namespace vpnlab {

struct RunReport {
  std::vector<SampleRow> rows;
  std::vector<ProductOutcome> products;  // every product of the plan, in its order
  bool interrupted = false;
  std::optional<SamplingOutcome> sampling;  // --precision: why and when sampling stopped
  std::string output_error;                 // the run's end that could not be recorded (rows are complete)
  RunTiming timing;                         // where the wall time went (also environment.json "timings")
};

Result<RunReport> run_bench(const Plan& plan, const RunOptions& opts);

}  // namespace vpnlab
