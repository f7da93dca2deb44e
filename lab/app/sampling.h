// `run`/`plan --precision P [--max-time D] [--min-rounds N]`: the checked request as the
// runner's SequentialPlan, and what `plan` says about the time it will take.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/base/sequential.h"
#include "lab/model/plan.h"
#include "lab/record/results_csv.h"
#include "lab/results/power.h"

namespace vpnlab {

struct SamplingRequest {
  std::optional<double> precision;
  std::optional<double> max_time_s;
  std::optional<int> min_rounds;
  bool samples_given = false;  // --samples (or a rerun's recorded count): the round limit
  bool force = false;          // --force: a sweep the budget cannot hold is measured anyway
};

// Rounds a --precision run may take when --samples does not say.
inline constexpr int kDefaultMaxRounds = 100;
// The first look when --min-rounds does not say.
inline constexpr int kDefaultFirstLook = 5;
// Said after the sampling plan when it is the topology's own.
inline constexpr const char* kTopologySamplingNote =
    "  (the topology's [bench] precision and max_time: --samples N measures a fixed count instead, --precision P asks "
    "for another)";

// nullopt without --precision (then --max-time and --min-rounds are refused) unless the
// topology's [bench] precision applies (no --samples, interleaved rounds). Sets
// plan->samples to the round limit, plan->precision and plan->max_time_s to what applies
// (the command line's --precision with its own --max-time or none, else the topology's).
Result<std::optional<SequentialPlan>> sequential_request(const SamplingRequest& request, Plan* plan);

// For `plan`: the bounds in rounds and minutes, and, given an earlier run's rows of the same
// products and tests, the look at which its noise would have met the target.
std::string describe_sampling(const Plan& plan, const SequentialPlan& seq, double max_time_s,
                              const std::vector<SampleRow>* earlier);

// The comparisons a run of `plan` makes (lab/results/power.h): its tests, products, tunnels
// (product specs from `products_path` say which are; one that does not load counts as one),
// --vs, and tagged versions.
PlannedComparisons planned_comparisons(const Plan& plan, const std::string& products_path, const std::string& vs);
// The spread that predicts what a run resolves: `from_dir`'s rows when given, else the newest
// run in `out_dir` made from the same topology file (its sha256), else the stated default.
Spread planning_spread(const Plan& plan, const std::string& from_dir, const std::string& out_dir);

}  // namespace vpnlab
