#include "lab/generators/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace vpnlab {

int LatencyHistogram::bucket_of(double ms) {
  if (!(ms > kLowestMs)) return 0;  // also NaN: a clock cannot give one, a caller could
  const double i = std::floor(std::log(ms / kLowestMs) / std::log(kRatio));
  return static_cast<int>(std::min(i, static_cast<double>(kBuckets - 1)));
}

void LatencyHistogram::add(double ms) {
  if (!std::isfinite(ms) || ms < 0) ms = 0;
  min_ = count_ == 0 ? ms : std::min(min_, ms);
  max_ = count_ == 0 ? ms : std::max(max_, ms);
  ++counts_[static_cast<size_t>(bucket_of(ms))];
  ++count_;
}

double LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const double wanted = std::ceil(q * static_cast<double>(count_));
  const uint64_t rank = static_cast<uint64_t>(std::clamp(wanted, 1.0, static_cast<double>(count_)));
  // The ends are known exactly; so is everything past the last bucket (only the largest is kept).
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  uint64_t seen = 0;
  int i = 0;
  for (; i < kBuckets - 1; ++i) {
    seen += counts_[static_cast<size_t>(i)];
    if (seen >= rank) break;
  }
  if (i == kBuckets - 1) return max_;
  const double middle = kLowestMs * std::pow(kRatio, i + 0.5);
  return std::clamp(middle, min_, max_);
}

}  // namespace vpnlab
