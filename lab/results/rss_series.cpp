#include "lab/results/rss_series.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "lab/record/run_layout.h"

namespace vpnlab {

std::vector<std::pair<double, double>> rss_over_time(const std::string& run_dir, const std::string& product,
                                                     const std::string& test, int sample) {
  std::istringstream in(read_raw_sample(run_dir, product, test, sample, kRssSuffix));
  std::map<double, double> busiest;  // t -> MB
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    double t = 0, kb = 0;
    std::string node;
    if (!(fields >> t >> node >> kb) || !std::isfinite(t) || !std::isfinite(kb) || t < 0 || kb < 0) continue;
    double& mb = busiest[t];
    mb = std::max(mb, kb / 1024);
  }
  return {busiest.begin(), busiest.end()};
}

}  // namespace vpnlab
