#include "lab/runtime/measurements.h"

#include <algorithm>
#include <cmath>

namespace vpnlab {

double LatencyProbe::quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

std::string iperf_repeating_pattern(size_t length) {
  std::string p;
  for (size_t i = 0; i < length; ++i) p += static_cast<char>('0' + i % 10);
  return p;
}

}  // namespace vpnlab
