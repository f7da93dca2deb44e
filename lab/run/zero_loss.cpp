#include "lab/run/zero_loss.h"

#include <algorithm>
#include <cmath>

namespace vpnlab {

namespace {
constexpr double kCloseEnough = 0.02;  // pass and fail rates this close: the search has converged
}

SampleRow run_zero_loss_search(const SampleContext& c, const std::string& label, double duration_s, bool* interrupted) {
  const TestSpec& spec = c.test->spec;
  const double trial_s = std::max(1.0, std::floor(duration_s / spec.steps));
  PlanTest trial = *c.test;
  trial.spec.zero_loss = false;
  SampleContext tc = c;
  tc.test = &trial;
  double pass = 0, fail = spec.bitrate_bps;
  SampleRow best, last, first;
  bool found = false;
  for (int step = 1; step <= spec.steps; ++step) {
    const double rate = step == 1 ? spec.bitrate_bps : (pass + fail) / 2;
    trial.spec.bitrate_bps = rate;
    last = run_sample(tc, label + "-try" + std::to_string(step), trial_s, interrupted);
    if (*interrupted || last.status != "ok" || (!last.valid && c.session->tunnel())) return last;
    if (step == 1) first = last, tc.idle_from = &first;  // the idle path, measured once
    if (last.loss_pct <= spec.max_loss_pct) {
      pass = rate, best = last, found = true;
      // The highest rate asked for passes; or the sender could not reach the rate (it
      // is the limit then, and asking for more would find nothing new).
      if (step == 1 || last.offered_bps < (1 - kCloseEnough) * rate) break;
    } else {
      // A sender short of the rate asked for failed at what it sent: the next trial
      // bisects below that, not below a rate it never reached.
      fail = last.offered_bps > 0 ? std::min(rate, last.offered_bps) : rate;
    }
    if (fail - pass <= kCloseEnough * fail) break;
  }
  SampleRow row = found ? best : last;
  // The rate the sender achieved in the passing trial: a generator that fell short of the
  // rate asked for offered only what it sent.
  row.zero_loss_bps = found ? best.offered_bps : 0;
  return row;
}

}  // namespace vpnlab
