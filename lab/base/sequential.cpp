#include "lab/base/sequential.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

namespace vpnlab {

std::vector<int> SequentialPlan::looks() const {
  std::vector<int> out;
  const int last = std::max(max_rounds, 1);
  int n = std::min(std::max(min_rounds, 2), last);
  while (n < last) {
    out.push_back(n);
    n = std::max(n + 1, static_cast<int>(std::ceil(n * 1.5)));
  }
  out.push_back(last);
  return out;
}

double SequentialPlan::confidence_per_look() const { return 1 - alpha / static_cast<double>(looks().size()); }

// Student's t from Boost.Math (it agrees with the series this file held to 4e-13).
double t_two_sided_p(double t, int df) {
  if (df < 1 || !std::isfinite(t)) return std::isinf(t) ? 0 : 1;
  const boost::math::students_t dist(df);
  return std::clamp(2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))), 0.0, 1.0);
}

double t_quantile(double confidence, int df) {
  if (df < 1) return std::numeric_limits<double>::infinity();
  const boost::math::students_t dist(df);
  return boost::math::quantile(boost::math::complement(dist, (1 - confidence) / 2));
}

RatioInterval ratio_interval(const std::vector<double>& ratios, double confidence) {
  RatioInterval r;
  std::vector<double> logs;
  for (double x : ratios)
    if (x > 0 && std::isfinite(x)) logs.push_back(std::log(x));
  r.n = logs.size();
  if (logs.empty()) {
    r.half_width = std::numeric_limits<double>::infinity();
    return r;
  }
  double mean = 0;
  for (double x : logs) mean += x / static_cast<double>(logs.size());
  r.ratio = std::exp(mean);
  if (logs.size() < 2) {
    r.low = 0;
    r.high = std::numeric_limits<double>::infinity();
    r.half_width = std::numeric_limits<double>::infinity();
    return r;
  }
  double ss = 0;
  for (double x : logs) ss += (x - mean) * (x - mean);
  r.log_sd = std::sqrt(ss / static_cast<double>(logs.size() - 1));
  const double se = r.log_sd / std::sqrt(static_cast<double>(logs.size()));
  const double h = t_quantile(confidence, static_cast<int>(logs.size()) - 1) * se;
  r.low = std::exp(mean - h);
  r.high = std::exp(mean + h);
  r.half_width = std::max(r.high / r.ratio - 1, 1 - r.low / r.ratio);
  return r;
}

void look_at_series(const SequentialPlan& plan, int rounds, const std::vector<std::vector<double>>& ratio_series,
                    std::vector<SeriesLook>* state) {
  state->resize(ratio_series.size());
  const auto looks = plan.looks();
  const bool is_look = std::find(looks.begin(), looks.end(), rounds) != looks.end();
  for (size_t i = 0; i < ratio_series.size(); ++i) {
    SeriesLook& s = (*state)[i];
    if (s.met) continue;
    RatioInterval r = ratio_interval(ratio_series[i], plan.confidence_per_look());
    s.rounds = static_cast<int>(r.n);
    s.half_width = r.half_width;
    s.met = is_look && r.half_width <= plan.target;
  }
}

bool round_fits(double elapsed_s, int rounds_done, double max_time_s) {
  if (max_time_s <= 0 || rounds_done <= 0) return true;
  return elapsed_s + elapsed_s / rounds_done <= max_time_s;
}

}  // namespace vpnlab
