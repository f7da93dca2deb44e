#include "lab/history/detector.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include <boost/math/distributions/non_central_t.hpp>

#include "lab/base/sequential.h"

namespace vpnlab {

namespace {

struct Moments {
  size_t n = 0;
  double mean = 0, var = 0;  // sample variance (n - 1)
};

Moments moments(const std::vector<double>& v, size_t from, size_t to) {
  Moments m;
  m.n = to - from;
  if (m.n == 0) return m;
  m.mean = std::accumulate(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(to), 0.0) /
           static_cast<double>(m.n);
  if (m.n < 2) return m;
  double ss = 0;
  for (size_t i = from; i < to; ++i) ss += (v[i] - m.mean) * (v[i] - m.mean);
  m.var = ss / static_cast<double>(m.n - 1);
  return m;
}

// Student's two-sided p-value for the means of v[a, k) and v[k, b), with the pooled variance:
// under "no change" both sides have one variance, and the test is exact for normal logs
// (Welch's, with a side of two points, was not: its df approximation let 9 % of flat
// series split at a nominal 1 %).
double split_p(const std::vector<double>& v, size_t a, size_t k, size_t b) {
  const Moments x = moments(v, a, k), y = moments(v, k, b);
  const double df = static_cast<double>(x.n + y.n - 2);
  const double pooled = ((static_cast<double>(x.n) - 1) * x.var + (static_cast<double>(y.n) - 1) * y.var) / df;
  const double se = std::sqrt(pooled * (1.0 / static_cast<double>(x.n) + 1.0 / static_cast<double>(y.n)));
  if (se == 0) return x.mean == y.mean ? 1.0 : 0.0;
  return t_two_sided_p((x.mean - y.mean) / se, static_cast<int>(df));
}

}  // namespace

double detectable_change(double s, size_t n, double level, bool higher_is_better) {
  if (n < 2 || !(s > 0)) return 0;
  const double df = static_cast<double>(n - 1);
  const double crit = t_quantile(level, static_cast<int>(n) - 1);
  // Power rises with the non-centrality: bisect for 80 %.
  auto power = [&](double lambda) {
    return boost::math::cdf(boost::math::complement(boost::math::non_central_t_distribution<double>(df, lambda), crit));
  };
  double lo = 0, hi = 1;
  while (power(hi) < 0.8 && hi < 1e4) hi *= 2;
  for (int i = 0; i < 40; ++i) {  // 1e-12 of the bracket: far below a printed digit
    const double mid = (lo + hi) / 2;
    (power(mid) < 0.8 ? lo : hi) = mid;
  }
  const double log_change = hi * s * std::sqrt(1 + 1 / static_cast<double>(n));
  return higher_is_better ? 1 - std::exp(-log_change) : std::exp(log_change) - 1;
}

Lookback judge_newest(const std::vector<double>& history, double newest, bool higher_is_better, double threshold,
                      double level, const std::string& better, const std::string& worse) {
  Lookback out;
  out.level = level;
  std::vector<double> logs;
  for (double v : history)
    if (v > 0 && std::isfinite(v)) logs.push_back(std::log(v));
  if (logs.size() > kHistoryWindow) logs.erase(logs.begin(), logs.end() - static_cast<long>(kHistoryWindow));
  out.history = logs.size();
  if (logs.size() < kMinHistoryPoints || !(newest > 0)) {
    out.verdict = "no comparable history";
    return out;
  }
  const Moments m = moments(logs, 0, logs.size());
  const double n = static_cast<double>(m.n);
  out.log_sd = std::sqrt(m.var);
  const double half = t_quantile(level, static_cast<int>(m.n) - 1) * std::sqrt(m.var) * std::sqrt(1 + 1 / n);
  const double d = std::log(newest) - m.mean;
  out.ratio = std::exp(d);
  out.low = std::exp(d - half);
  out.high = std::exp(d + half);
  const bool worse_side = higher_is_better ? out.high < 1 : out.low > 1;
  const bool better_side = higher_is_better ? out.low > 1 : out.high < 1;
  const bool beyond = higher_is_better ? out.ratio < 1 - threshold : out.ratio > 1 + threshold;
  if (worse_side) {
    out.regression = beyond;
    out.verdict = beyond ? worse : worse + ", within the threshold";
  } else {
    out.verdict = better_side ? better : "no significant change";
  }
  return out;
}

std::vector<size_t> change_points(const std::vector<double>& values, double alpha, size_t min_segment) {
  // Missing points are skipped; indices are mapped back at the end.
  std::vector<double> logs;
  std::vector<size_t> index;
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] > 0 && std::isfinite(values[i])) logs.push_back(std::log(values[i])), index.push_back(i);
  min_segment = std::max<size_t>(min_segment, 2);  // a variance needs two points
  std::vector<size_t> found;
  std::function<void(size_t, size_t)> split = [&](size_t a, size_t b) {
    if (b - a < 2 * min_segment) return;
    size_t best = 0;
    double best_p = 2;
    for (size_t k = a + min_segment; k + min_segment <= b; ++k)
      if (double p = split_p(logs, a, k, b); p < best_p) best_p = p, best = k;
    const double tried = static_cast<double>(b - a - 2 * min_segment + 1);
    if (best_p * tried >= alpha) return;
    found.push_back(best);
    split(a, best);
    split(best, b);
  };
  split(0, logs.size());
  std::vector<size_t> out;
  for (size_t k : found) out.push_back(index[k]);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace vpnlab
