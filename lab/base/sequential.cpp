#include "lab/base/sequential.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

namespace vpnlab {

int SequentialPlan::first_stage() const { return std::max(2, std::min(min_rounds, max_rounds)); }

int SequentialPlan::rounds_needed(double first_sd) const {
  const int n0 = first_stage();
  const double h = t_quantile(confidence(), n0 - 1) * first_sd / std::log1p(target);
  const double n = std::ceil(h * h);
  // A spread so wide that no count would do: more than any run takes.
  return n >= 1e6 ? 1000000 : std::max(n0, static_cast<int>(n));
}

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

namespace {

std::vector<double> logs_of(const std::vector<double>& ratios) {
  std::vector<double> logs;
  for (double x : ratios)
    if (x > 0 && std::isfinite(x)) logs.push_back(std::log(x));
  return logs;
}

double mean_of(const std::vector<double>& v, size_t n) {
  double mean = 0;
  for (size_t i = 0; i < n; ++i) mean += v[i] / static_cast<double>(n);
  return mean;
}

double sd_of(const std::vector<double>& v, size_t n) {
  const double mean = mean_of(v, n);
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += (v[i] - mean) * (v[i] - mean);
  return std::sqrt(ss / static_cast<double>(n - 1));
}

// mean ± h on the log scale, back on the ratio scale.
void set_bounds(double mean, double h, RatioInterval* r) {
  r->ratio = std::exp(mean);
  r->low = std::exp(mean - h);
  r->high = std::exp(mean + h);
  r->half_width = std::max(r->high / r->ratio - 1, 1 - r->low / r->ratio);
}

}  // namespace

RatioInterval ratio_interval(const std::vector<double>& ratios, double confidence) {
  return two_stage_interval(ratios, static_cast<int>(logs_of(ratios).size()), confidence);
}

RatioInterval two_stage_interval(const std::vector<double>& ratios, int first, double confidence) {
  RatioInterval r;
  const std::vector<double> logs = logs_of(ratios);
  r.n = logs.size();
  const size_t n0 = std::min(r.n, static_cast<size_t>(std::max(first, 0)));
  if (logs.empty()) {
    r.half_width = std::numeric_limits<double>::infinity();
    return r;
  }
  r.ratio = std::exp(mean_of(logs, r.n));
  if (n0 < 2) {
    r.low = 0;
    r.high = std::numeric_limits<double>::infinity();
    r.half_width = std::numeric_limits<double>::infinity();
    return r;
  }
  r.log_sd = sd_of(logs, n0);
  const double se = r.log_sd / std::sqrt(static_cast<double>(r.n));
  set_bounds(mean_of(logs, r.n), t_quantile(confidence, static_cast<int>(n0) - 1) * se, &r);
  return r;
}

void look_at_series(const SequentialPlan& plan, const std::vector<std::vector<double>>& ratio_series,
                    std::vector<SeriesLook>* state) {
  state->resize(ratio_series.size());
  const int n0 = plan.first_stage();
  for (size_t i = 0; i < ratio_series.size(); ++i) {
    SeriesLook& s = (*state)[i];
    if (s.met) continue;
    RatioInterval r = two_stage_interval(ratio_series[i], n0, plan.confidence());
    s.rounds = static_cast<int>(r.n);
    s.half_width = r.half_width;
    if (s.needed == 0 && s.rounds >= n0) {
      s.first_sd = r.log_sd;
      s.needed = plan.rounds_needed(r.log_sd);
    }
    s.met = s.needed > 0 && s.rounds >= s.needed;
  }
}

bool round_fits(double elapsed_s, int rounds_done, double max_time_s) {
  if (max_time_s <= 0 || rounds_done <= 0) return true;
  return elapsed_s + elapsed_s / rounds_done <= max_time_s;
}

}  // namespace vpnlab
