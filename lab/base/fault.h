// Deterministic fault injection for the reliability tests: VPNLAB_FAULT=point:n:signal
// (comma-separated) makes the n-th pass through a named point send `signal` (int, term, hup or
// kill) to vpnlab itself. Points: netns-create, link-create, fork-exec, readiness,
// mid-sample, csv-row, teardown, history-row (inside the history's append transaction),
// suite-scenario (a suite's scenario, its run announced and recorded as running). Unset, a point costs one relaxed
// load.
#pragma once

namespace vpnlab {

// Counts a pass through `point`; returns the signal due now (0: none).
int fault_signal_due(const char* point);
// Counts a pass and raises the due signal at vpnlab's own process.
void fault_point(const char* point);

}  // namespace vpnlab
