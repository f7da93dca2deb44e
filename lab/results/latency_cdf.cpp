#include "lab/results/latency_cdf.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "lab/record/run_layout.h"

namespace vpnlab {

std::vector<double> pooled_rtts(const std::string& run_dir, const std::string& product, const std::string& test,
                                const std::vector<int>& samples) {
  std::vector<double> out;
  // A CDF drawn from millions of round trips looks the same as from all of them; the cap
  // bounds memory for any run (1000 samples of an hour each would be 3.6e8 probes).
  const size_t kMaxPooled = 4u << 20;
  for (int n : samples) {
    if (out.size() >= kMaxPooled) break;
    std::istringstream in(read_raw_sample(run_dir, product, test, n, kRttSuffix));
    // A line that is not a round trip (a hand edit) is skipped: the figures in the table
    // come from results.csv, this only draws their distribution.
    for (std::string line; std::getline(in, line);) {
      try {
        size_t used = 0;
        double ms = std::stod(line, &used);
        if (used > 0 && std::isfinite(ms) && ms >= 0) out.push_back(ms);
      } catch (...) {
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<double, double>> cdf_points(const std::vector<double>& sorted, double top) {
  std::vector<std::pair<double, double>> out;
  if (sorted.empty()) return out;
  const double n = static_cast<double>(sorted.size());
  const int steps = static_cast<int>(std::floor(top * 200 + 1e-9));  // 0.5 % steps
  for (int k = 1; k <= steps; ++k) {
    const double q = k / 200.0;
    // Nearest rank, with the product's rounding error kept out of the ceiling.
    size_t rank = static_cast<size_t>(std::ceil(q * n - 1e-9));
    out.push_back({sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1], q});
  }
  return out;
}

}  // namespace vpnlab
