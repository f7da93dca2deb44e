#include "lab/cli/sampling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lab/run/adaptive.h"

namespace vpnlab {

Result<std::optional<SequentialPlan>> sequential_request(const SamplingRequest& r, Plan* plan) {
  if (!r.precision) {
    if (r.max_time_s || r.min_rounds)
      return make_error("--max-time and --min-rounds belong to adaptive sampling", "add --precision P (e.g. 2%), or leave them out");
    return std::optional<SequentialPlan>();
  }
  if (!plan->interleave) return make_error("--precision needs interleaved rounds", "leave out --sequential");
  if (auto w = watched_series(*plan); !w) return w.error();
  if (!r.samples_given) plan->samples = kDefaultMaxRounds;
  SequentialPlan seq;
  seq.target = *r.precision;
  seq.min_rounds = r.min_rounds.value_or(5);
  seq.max_rounds = plan->samples;
  if (seq.min_rounds > seq.max_rounds)
    return make_error("--min-rounds " + std::to_string(seq.min_rounds) + " is more than the " + std::to_string(seq.max_rounds) + " rounds allowed",
                      "raise --samples (the round limit) or lower --min-rounds");
  return std::optional<SequentialPlan>(seq);
}

namespace {
std::string minutes(double s) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.1f min", s / 60);
  return buf;
}
}  // namespace

std::string describe_sampling(const Plan& plan, const SequentialPlan& seq, double max_time_s, const std::vector<SampleRow>* earlier) {
  const double per_round = plan.samples > 0 ? plan.estimated_seconds() / plan.samples : 0;
  const auto looks = seq.looks();
  char buf[256];
  snprintf(buf, sizeof buf, "adaptive sampling to ±%.1f %%: at least %d rounds (~%s), at most %d (~%s)", 100 * seq.target, looks.front(),
           minutes(per_round * looks.front()).c_str(), seq.max_rounds, minutes(per_round * seq.max_rounds).c_str());
  std::string out = std::string(buf) + (max_time_s > 0 ? " or " + minutes(max_time_s) : "") + "; looks after rounds";
  for (int n : looks) out += " " + std::to_string(n);
  snprintf(buf, sizeof buf, ", each at %.2f %% (Bonferroni over %zu looks: 95 %% overall)\n", 100 * seq.confidence_per_look(), looks.size());
  out += buf;
  if (!earlier) return out;
  auto series = watched_series(plan);
  if (!series) return out;
  // The first look at which every series' interval, with the earlier run's spread, is
  // narrow enough: the spread of a few rounds is a rough guide, said as such.
  // The widest spread decides; a series with fewer than 2 ratios has none to go by.
  double widest_sd = 0;
  bool known = true;
  for (const auto& r : paired_ratios(*series, *earlier)) {
    auto i = ratio_interval(r, seq.confidence_per_look());
    known = known && i.n >= 2;
    widest_sd = std::max(widest_sd, i.log_sd);
  }
  int expected = 0;
  for (int n : looks)
    if (known && std::exp(t_quantile(seq.confidence_per_look(), n - 1) * widest_sd / std::sqrt(double(n))) - 1 <= seq.target) {
      expected = n;
      break;
    }
  if (expected > 0)
    out += "  expected from the earlier run's spread: " + std::to_string(expected) + " rounds (~" + minutes(per_round * expected) + ")\n";
  else
    out += "  expected from the earlier run's spread: the target is not met within " + std::to_string(seq.max_rounds) + " rounds\n";
  return out;
}

}  // namespace vpnlab
