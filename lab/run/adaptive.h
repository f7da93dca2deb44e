// Adaptive sampling in a run: which ratios it watches and when it stops. Each product's
// throughput is paired round by round with a reference measured in the same round: the
// product's first tagged version for a tagged one (nebula@new against nebula@old), else
// the baseline. The stopping rule itself is lab/base/sequential.h.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"
#include "lab/base/sequential.h"
#include "lab/model/plan.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

struct RatioSeries {
  std::string product, reference, test;
  std::string label() const { return product + " / " + test + " vs " + reference; }
};

// Every product x test with a reference in this run; an error naming the fix when there
// is none (no baseline and no tagged pair).
Result<std::vector<RatioSeries>> watched_series(const Plan& plan);

// Round-paired ratios (product Gbit/s / reference Gbit/s of the same sample number) of
// each series, from valid rows only.
std::vector<std::vector<double>> paired_ratios(const std::vector<RatioSeries>& series, const std::vector<SampleRow>& rows);

// Why sampling stopped, for environment.json ("sampling") and the table.
struct SamplingOutcome {
  std::string why;  // "target met", "time out", "max rounds", "interrupted"
  int rounds = 0;
  double widest = 0;  // largest half-width reached, relative
  std::string widest_series;
  SequentialPlan plan;
  double max_time_s = 0;
};
nlohmann::json sampling_json(const SamplingOutcome& s);
// The plan part of it (also `plan --json`'s "sampling"): precision, rounds, looks, level.
nlohmann::json sequential_plan_json(const SequentialPlan& plan, double max_time_s);

}  // namespace vpnlab
