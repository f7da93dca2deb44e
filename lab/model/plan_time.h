// What a run will take, phase by phase, from its plan alone: the seconds its samples and
// warm-ups ask for, and what the harness spends around them. The harness's figures are
// those a run records (environment.json "timings"), measured per test kind and backend on
// this machine kind by bench/plan_bench.sh; `plan`, the run's progress line, adaptive
// sampling's round limit and a suite's shares all read this one estimate.
#pragma once
#include "lab/model/plan.h"

namespace vpnlab {

struct RunTimeEstimate {
  double labs_s = 0;       // per round, lab point and product: the lab built, the product up, stopped, torn down
  double warmup_s = 0;     // the warm-ups, each a sample of its own
  double measuring_s = 0;  // the samples' asked-for seconds
  double overhead_s = 0;   // around each sample: servers started, counters read, the proof
  double once_s = 0;       // the run's preparation, its impaired links measured, its outputs
  double total() const { return labs_s + warmup_s + measuring_s + overhead_s + once_s; }
};

RunTimeEstimate estimate_run_time(const Plan& plan);

}  // namespace vpnlab
