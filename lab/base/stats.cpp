#include "lab/base/stats.h"

#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <cmath>

namespace vpnlab {

namespace {
// P(X <= k) for X ~ Binomial(n, 1/2).
double binomial_half_cdf(size_t n, size_t k) {
  double sum = 0, term = std::pow(0.5, static_cast<double>(n));  // C(n,0) / 2^n
  for (size_t i = 0; i <= k; ++i) {
    sum += term;
    term = term * static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return sum;
}
}  // namespace

SampleStats describe(std::vector<double> v) {
  SampleStats s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  for (double x : v) s.mean += x / static_cast<double>(n);
  if (n > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.stdev = std::sqrt(ss / static_cast<double>(n - 1));
  }
  s.cv = s.mean != 0 ? s.stdev / s.mean : 0;
  // [x_(k), x_(n+1-k)] covers the median with 1 - 2 P(X <= k-1): take the widest k whose
  // coverage is still >= 95 %; with fewer than 6 samples even [min, max] falls short.
  size_t k = 1;
  while (k + 1 <= n / 2 && 1 - 2 * binomial_half_cdf(n, k) >= 0.95) ++k;
  s.ci_low = v[k - 1];
  s.ci_high = v[n - k];
  s.coverage = 1 - 2 * binomial_half_cdf(n, k - 1);
  return s;
}

// The beta quantiles of the exact binomial interval (Clopper and Pearson, 1934).
ProportionInterval proportion_interval(size_t hits, size_t n, double level) {
  ProportionInterval out;
  if (n == 0 || hits > n) return out;
  const double tail = (1 - level) / 2;
  const double k = static_cast<double>(hits), m = static_cast<double>(n);
  if (hits > 0) out.low = boost::math::ibeta_inv(k, m - k + 1, tail);
  if (hits < n) out.high = boost::math::ibeta_inv(k + 1, m - k, 1 - tail);
  return out;
}

double jain_index(const std::vector<double>& x) {
  double sum = 0, squares = 0;
  for (double v : x) sum += v, squares += v * v;
  if (x.empty() || squares <= 0) return 0;
  return sum * sum / (static_cast<double>(x.size()) * squares);
}

}  // namespace vpnlab
