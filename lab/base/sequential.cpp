#include "lab/base/sequential.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace vpnlab {

int SequentialPlan::first_look() const { return std::max(2, std::min(min_rounds, max_rounds)); }

int SequentialPlan::rounds_needed(double log_sd) const {
  constexpr int kMost = 10000;
  const double within = std::log1p(target);
  // t(n - 1) is above the normal quantile z, so no n below (z * sd / within)^2 will do:
  // start there rather than walk up to it (the rule asks after every round).
  const double z = boost::math::quantile(boost::math::complement(boost::math::normal(), (1 - confidence()) / 2));
  const double floor_n = std::pow(z * log_sd / within, 2);
  if (!(floor_n < kMost)) return kMost;
  for (int n = std::max(first_look(), static_cast<int>(floor_n)); n < kMost; ++n)
    if (t_quantile(confidence(), n - 1) * log_sd / std::sqrt(static_cast<double>(n)) <= within) return n;
  return kMost;
}

// Student's t from Boost.Math (it agrees with the series this file held to 4e-13).
double t_two_sided_p(double t, int df) {
  if (df < 1 || !std::isfinite(t)) return std::isinf(t) ? 0 : 1;
  const boost::math::students_t dist(df);
  return std::clamp(2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))), 0.0, 1.0);
}

namespace {

// The looks' quantiles, once: the rule asks for one after every round of every series.
constexpr int kCachedDf = 1024;
const std::array<double, kCachedDf>& look_quantiles() {
  static const std::array<double, kCachedDf> table = [] {
    std::array<double, kCachedDf> t{};
    for (int df = 1; df < kCachedDf; ++df)
      t[df] = boost::math::quantile(boost::math::complement(boost::math::students_t(df), (1 - kLookConfidence) / 2));
    return t;
  }();
  return table;
}

}  // namespace

double t_quantile(double confidence, int df) {
  if (df < 1) return std::numeric_limits<double>::infinity();
  if (confidence == kLookConfidence && df < kCachedDf) return look_quantiles()[df];
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

double mean_of(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x / static_cast<double>(v.size());
  return mean;
}

double sd_of(const std::vector<double>& v) {
  const double mean = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

}  // namespace

RatioInterval ratio_interval(const std::vector<double>& ratios, double confidence) {
  RatioInterval r;
  const std::vector<double> logs = logs_of(ratios);
  r.n = logs.size();
  if (logs.empty()) {
    r.half_width = std::numeric_limits<double>::infinity();
    return r;
  }
  const double mean = mean_of(logs);
  r.ratio = std::exp(mean);
  if (logs.size() < 2) {
    r.low = 0;
    r.high = std::numeric_limits<double>::infinity();
    r.half_width = std::numeric_limits<double>::infinity();
    return r;
  }
  r.log_sd = sd_of(logs);
  const double se = r.log_sd / std::sqrt(static_cast<double>(r.n));
  const double h = t_quantile(confidence, static_cast<int>(r.n) - 1) * se;
  r.low = std::exp(mean - h);
  r.high = std::exp(mean + h);
  r.half_width = std::max(r.high / r.ratio - 1, 1 - r.low / r.ratio);
  return r;
}

void look_at_series(const SequentialPlan& plan, const std::vector<std::vector<double>>& ratio_series,
                    std::vector<SeriesLook>* state) {
  state->resize(ratio_series.size());
  for (size_t i = 0; i < ratio_series.size(); ++i) {
    SeriesLook& s = (*state)[i];
    if (s.met) continue;
    RatioInterval r = ratio_interval(ratio_series[i], plan.confidence());
    s.rounds = static_cast<int>(r.n);
    s.half_width = r.half_width;
    if (s.rounds < plan.first_look()) continue;
    s.needed = std::max(s.rounds, plan.rounds_needed(r.log_sd));
    s.met = r.half_width <= plan.target;
    if (s.met) s.needed = s.rounds;
  }
}

bool round_fits(double elapsed_s, int rounds_done, double max_time_s) {
  if (max_time_s <= 0 || rounds_done <= 0) return true;
  return elapsed_s + elapsed_s / rounds_done <= max_time_s;
}

}  // namespace vpnlab
