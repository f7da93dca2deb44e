#include "lab/model/plan_time.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "lab/model/backend_traits.h"
#include "lab/model/impairment_profiles.h"
#include "lab/model/test_kinds.h"
#include "lab/model/traffic.h"

namespace vpnlab {

namespace {

// A zero-loss search (lab/run/zero_loss.cpp) runs at most `steps` trials of duration /
// steps (at least 1 s each) and stops once it has converged: 5 of 6 on the latency
// topology's UDP tests here.
constexpr double kSearchTrialsRun = 0.8;

double trials(const PlanTest& t) { return t.spec.zero_loss ? kSearchTrialsRun * t.spec.steps : 1; }

// A sample's asked-for seconds.
double asked_seconds(const PlanTest& t, double duration_s) {
  if (!t.spec.zero_loss) return duration_s;
  return trials(t) * std::max(1.0, std::floor(duration_s / t.spec.steps));
}

// The harness around one sample: the kind's own cost (its generator's start and stop),
// and each process beyond the first its server started and waited for.
double sample_overhead(const Plan& plan, const PlanTest& t) {
  const TestKindTraits& kind = test_kind(t.spec.kind);
  const double processes = kind.transactions ? 1 : static_cast<double>(expand_traffic(plan, t, kind.first_port).size());
  const double one = kind.sample_overhead_s + (processes - 1) * kind.process_overhead_s;
  return one * trials(t);
}

// Around a warm-up: the same, less what only a measured sample spends (its meters are left
// out), and one plain sample where a zero-loss search would run its trials.
double warmup_overhead(const Plan& plan, const PlanTest& t) {
  const TestKindTraits& kind = test_kind(t.spec.kind);
  return sample_overhead(plan, t) / trials(t) - kind.measured_only_s;
}

// How many tests of the plan a product runs (a relay chain it has no relay for: none of
// those).
size_t tests_run(const Plan& plan, const std::string& product) {
  const auto skipped = plan.tests_not_run.find(product);
  const size_t not_run = skipped == plan.tests_not_run.end() ? 0 : skipped->second;
  return plan.tests.size() - std::min(not_run, plan.tests.size());
}

}  // namespace

RunTimeEstimate estimate_run_time(const Plan& plan) {
  RunTimeEstimate e;
  const BackendTraits& backend = backend_traits(plan.backend);
  // Interleaved: every round builds the lab anew for each product (once per lab point);
  // sequential: once per product and point.
  const double rounds = plan.interleave ? plan.samples : 1;
  const double points = static_cast<double>(std::max<size_t>(1, plan.lab_points.size()));
  const double lab_s =
      backend.lab_s + backend.lab_node_s * static_cast<double>(plan.nodes.size() + plan.bridges.size());
  for (const auto& product : plan.products) {
    const size_t run = tests_run(plan, product);
    if (run == 0) continue;
    // A chained topology brings the product up once per hop (each hop its own overlay).
    const auto up = plan.bringup_s.find(product);
    const double sessions = static_cast<double>(std::max<size_t>(1, plan.hops.size()));
    e.labs_s += rounds * points * (lab_s + (up == plan.bringup_s.end() ? 0 : up->second * sessions));
    // The plaintext check, once per product: the first warm-up carries it when that is a
    // throughput test's; else a one-stream transfer of its own, which with warm-ups asked
    // for is the first test's warm-up in its round (as long as one), else 1 s.
    const TestKindTraits& bulk = test_kind("throughput");
    const double check_overhead = bulk.sample_overhead_s - bulk.measured_only_s;
    if (plan.warmup_s < 1)
      e.warmup_s += 1 + check_overhead;
    else if (plan.tests.front().spec.kind != "throughput")
      e.warmup_s += check_overhead - warmup_overhead(plan, plan.tests.front());
    // Each test is at one lab point (or every test at the one lab): per round, its warm-up
    // and the round's samples. A product runs the same fraction of every test kind.
    const double fraction = static_cast<double>(run) / static_cast<double>(plan.tests.size());
    for (const auto& t : plan.tests) {
      const double overhead = sample_overhead(plan, t);
      if (plan.warmup_s >= 1) e.warmup_s += fraction * rounds * (plan.warmup_s + warmup_overhead(plan, t));
      e.measuring_s += fraction * plan.samples * asked_seconds(t, plan.duration_s);
      e.overhead_s += fraction * plan.samples * overhead;
    }
  }
  // What each impaired link achieved is measured once per run, on the first lab.
  std::vector<std::string> measured;
  for (const auto& v : plan.veths)
    if (v.impaired() && std::find(measured.begin(), measured.end(), v.link) == measured.end()) {
      measured.push_back(v.link);
      e.once_s += path_measure_seconds(v.delay_ms, v.jitter_ms);
    }
  e.once_s += backend.run_s;
  return e;
}

}  // namespace vpnlab
