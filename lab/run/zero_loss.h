// A UDP test's zero-loss search (TestSpec::zero_loss): RFC 2544's throughput search, a
// bisection on the offered rate for the highest one whose loss stays within the test's
// threshold, each trial a sample of its own (fresh iperf3 server, tunnel proof, CPU).
#pragma once
#include <string>

#include "lab/run/sample.h"

namespace vpnlab {

// The first trial offers the test's bitrate; while the search goes on, each next one the
// middle of what is known to pass and what is known to fail (the rate a failing sender
// achieved, when it fell short of the rate asked for), `steps` trials at most (fewer
// once the two are within 2 %), each duration_s / steps long. The row is the passing
// trial's at the highest rate (zero_loss_bps = that rate), or, when none passed, the last
// trial's with zero_loss_bps = 0. A failed or invalid trial ends the search with its row.
SampleRow run_zero_loss_search(const SampleContext& c, const std::string& label, double duration_s, bool* interrupted);

}  // namespace vpnlab
