#include "lab/history/run_spread.h"

#include <cmath>
#include <vector>

#include "lab/base/sequential.h"

namespace vpnlab {

RunSpread run_spread_of(const Trend& trend, const std::set<std::string>& exclude) {
  size_t from = 0;  // the current level: from the last change point on
  for (size_t i = 0; i < trend.points.size(); ++i)
    if (trend.points[i].change_point) from = i;
  std::vector<double> means, se2;
  for (size_t i = from; i < trend.points.size(); ++i) {
    const TrendPoint& p = trend.points[i];
    if (exclude.count(p.run_id) || p.n < 2 || !(p.value > 0) || !(p.low > 0) || !(p.high > p.low)) continue;
    // The point's interval is a Student t interval of its mean log figure at kTrendPointLevel.
    const double se = std::log(p.high / p.low) / (2 * t_quantile(kTrendPointLevel, static_cast<int>(p.n) - 1));
    means.push_back(std::log(p.value));
    se2.push_back(se * se);
  }
  RunSpread s;
  s.runs = means.size();
  if (!s.known()) return s;
  double mean = 0, mean_se2 = 0, var = 0;
  for (size_t i = 0; i < means.size(); ++i) mean += means[i] / means.size(), mean_se2 += se2[i] / se2.size();
  for (double m : means) var += (m - mean) * (m - mean) / (means.size() - 1);
  s.sd = std::sqrt(std::max(0.0, var - mean_se2));
  return s;
}

}  // namespace vpnlab
