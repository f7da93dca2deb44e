// Where a run's wall time went, phase by phase (lab/base/phase_clock.h): recorded in
// environment.json ("timings") and said in one line under the summary, so the harness's
// cost per sample is a figure, not a guess. "other" is what no phase timed; the phases
// and it add up to the wall time of the run's measuring part (run_bench).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "lab/base/phase_clock.h"

namespace vpnlab {

inline constexpr const char* kPhasePreparation = "preparation";  // products checked, keys, run directory
inline constexpr const char* kPhaseBuild = "topology build";
inline constexpr const char* kPhaseBringUp = "bring-up";  // the product started and answering pings
inline constexpr const char* kPhaseChecks =
    "checks";  // offloads recorded, plaintext check (once, unless the warm-up carries it)
inline constexpr const char* kPhaseWarmup = "warm-up";
inline constexpr const char* kPhaseMeasuring = "measuring";  // the samples' asked-for seconds
// The latency meter's idle window before a bulk sample: a measurement of its own (the
// idle round trip that "added latency" is reckoned from), not the harness's cost.
inline constexpr const char* kPhaseIdleRoundTrip = "idle round trip";
inline constexpr const char* kPhaseSampleOverhead = "sample overhead";  // iperf3 start and stop, counters, proof
inline constexpr const char* kPhaseRecording = "recording";             // rows to results.csv (fsync)
inline constexpr const char* kPhaseProductStop = "product stop";
inline constexpr const char* kPhaseAudit = "audit";  // what the product's stop left
inline constexpr const char* kPhaseTeardown = "teardown";
inline constexpr const char* kPhaseKernelRelease = "kernel release wait";
inline constexpr const char* kPhaseOther = "other";

struct RunTiming {
  double wall_s = 0;
  int samples = 0;    // samples measured this session (warm-ups not counted)
  PhaseClock phases;  // with "other" = wall - the timed phases
};

// Adds "other" so that the phases sum to `wall_s`.
RunTiming finish_timing(const PhaseClock& phases, double wall_s, int samples);
// {"wall_s", "samples", "overhead_per_sample_s", "phases": {name: seconds}}.
nlohmann::json timing_json(const RunTiming& t);
// "wall time 43.4 s: measuring 55 %, warm-up 37 %, ...; harness 0.40 s per sample beyond
// warm-up and measuring (8 samples)"
std::string timing_line(const RunTiming& t);

}  // namespace vpnlab
