#include "lab/run/run_timing.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace vpnlab {

RunTiming finish_timing(const PhaseClock& phases, double wall_s, int samples) {
  RunTiming t;
  t.wall_s = wall_s;
  t.samples = samples;
  t.phases = phases;
  // A span may end a hair after the wall clock is read: "other" is never negative.
  t.phases.add(kPhaseOther, std::max(0.0, wall_s - phases.sum()));
  return t;
}

namespace {

// What the harness costs per sample: the wall time that is neither a sample's asked-for
// seconds, nor a warm-up's, nor the idle round trip before a bulk sample (what the user
// asked for).
double overhead_per_sample(const RunTiming& t) {
  const double asked =
      t.phases.seconds(kPhaseMeasuring) + t.phases.seconds(kPhaseWarmup) + t.phases.seconds(kPhaseIdleRoundTrip);
  return t.samples > 0 ? (t.wall_s - asked) / t.samples : 0;
}

}  // namespace

nlohmann::json timing_json(const RunTiming& t) {
  nlohmann::json phases = nlohmann::json::object();
  for (const auto& [name, s] : t.phases.totals()) phases[name] = std::round(s * 1000) / 1000;
  return {{"wall_s", std::round(t.wall_s * 1000) / 1000},
          {"samples", t.samples},
          {"overhead_per_sample_s", std::round(overhead_per_sample(t) * 1000) / 1000},
          {"phases", phases}};
}

std::string timing_line(const RunTiming& t) {
  if (t.wall_s <= 0) return "";
  std::vector<std::pair<std::string, double>> phases = t.phases.totals();
  std::stable_sort(phases.begin(), phases.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string o = fmt::format("wall time {:.1f} s:", t.wall_s);
  bool first = true;
  for (const auto& [name, s] : phases) {
    const double pct = 100 * s / t.wall_s;
    if (pct < 1) continue;  // the line names what matters; environment.json has every phase
    o += fmt::format("{} {} {:.0f} %", first ? "" : ",", name, pct);
    first = false;
  }
  if (t.samples > 0) {
    o += fmt::format("; harness {:.2f} s per sample beyond warm-up and measuring ({} samples)", overhead_per_sample(t),
                     t.samples);
  }
  return o;
}

}  // namespace vpnlab
