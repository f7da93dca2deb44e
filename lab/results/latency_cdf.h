// The latency distribution a test's probes saw under load: the raw round trips each sample
// kept (raw/PRODUCT/TEST/sample-N-rtt.txt, one per line, ms) pooled over the valid samples,
// as an empirical CDF for the report.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace vpnlab {

// Round trips of the given samples, sorted; missing files (guests, older runs) give none.
std::vector<double> pooled_rtts(const std::string& run_dir, const std::string& product, const std::string& test,
                                const std::vector<int>& samples);

// (ms, fraction <= ms) at every 0.5 % of the distribution up to `top` (down to a 0.5 % step), so a
// handful of outliers do not stretch the axis; empty for no values.
std::vector<std::pair<double, double>> cdf_points(const std::vector<double>& sorted, double top = 0.995);

}  // namespace vpnlab
