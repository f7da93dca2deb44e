// Adaptive sampling in a run: which ratios it watches and when it stops. Each product's
// throughput is paired round by round with a reference measured in the same round: the
// product's first tagged version for a tagged one (nebula@new against nebula@old), else
// the baseline. The stopping rule itself is lab/base/sequential.h.
#pragma once
#include <optional>
#include <set>
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
// each series, from valid rows the hypervisor did not disturb (is_disturbed).
std::vector<std::vector<double>> paired_ratios(const std::vector<RatioSeries>& series,
                                               const std::vector<SampleRow>& rows);

// Where one series ended: met at a look, or not (its half-width then, or why none).
struct SeriesOutcome {
  std::string series;  // RatioSeries::label()
  int rounds = 0;
  double half_width = 0;
  int needed = 0;  // the rounds its spread at the last look asked for (0: no look yet)
  bool met = false;
  std::string why_not;  // "" when met; "time out", "max rounds", "<product> never came up"
};

// Why sampling stopped, for environment.json ("sampling") and the table.
struct SamplingOutcome {
  std::string why;  // "target met", "time out", "max rounds", "interrupted"
  int rounds = 0;
  double widest = 0;  // largest half-width reached, relative
  std::string widest_series;
  SequentialPlan plan;
  double max_time_s = 0;
  std::vector<SeriesOutcome> series;  // each stops on its own (look_at_series)
};
nlohmann::json sampling_json(const SamplingOutcome& s);

// Per-series stopping in a run: which series are done (met, or their product or reference
// never came up) and which products need no more rounds.
class SeriesStops {
 public:
  SeriesStops(const SequentialPlan& plan, std::vector<RatioSeries> watched)
      : plan_(plan), watched_(std::move(watched)) {}
  // After a round, of `rows`; `dead`: products that never came up. Returns the series
  // whose first look was this round's and did not meet the target.
  std::vector<size_t> look(const std::vector<SampleRow>& rows, const std::set<std::string>& dead);
  // "wireguard-go / a-to-b vs baseline: ±13.3 % after its first 5 rounds (log spread 8.0 %):
  // about 17 rounds for ±5.0 %" (or: more than the N the run may take).
  std::string planned_line(size_t series) const;
  // The rounds `product` is expected to take: the most any series it is part of needs by its
  // spread so far (a series done: the rounds it took), the round limit before a first look
  // (or for a product in none).
  int expected_rounds(const std::string& product) const;
  bool all_done() const;
  bool all_met() const;
  // No series it measures or serves as reference for is still going.
  bool product_done(const std::string& product) const;
  // Each series' end, `why` given to those not met nor dead.
  std::vector<SeriesOutcome> outcomes(const std::string& why) const;

 private:
  bool done(size_t i) const { return looks_[i].met || !dead_[i].empty(); }
  SequentialPlan plan_;
  std::vector<RatioSeries> watched_;
  std::vector<SeriesLook> looks_;
  std::vector<std::string> dead_;  // per series: the product that never came up, or ""
};
// The plan part of it (also `plan --json`'s "sampling"): precision, rounds, first look, level.
nlohmann::json sequential_plan_json(const SequentialPlan& plan, double max_time_s);

}  // namespace vpnlab
