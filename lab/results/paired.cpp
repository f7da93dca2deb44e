#include "lab/results/paired.h"

#include <algorithm>
#include <cmath>

namespace vpnlab {

namespace {

constexpr size_t kExactLimit = 60;  // beyond this, the normal approximation

// counts[w] = how many of the 2^n sign patterns give the signed-rank statistic w.
std::vector<double> signed_rank_counts(size_t n) {
  std::vector<double> counts(n * (n + 1) / 2 + 1, 0.0);
  counts[0] = 1;
  size_t top = 0;
  for (size_t rank = 1; rank <= n; ++rank) {
    top += rank;
    for (size_t w = top; w >= rank; --w) counts[w] += counts[w - rank];
  }
  return counts;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double signed_rank_sd(size_t n) { return std::sqrt(static_cast<double>(n) * (n + 1) * (2 * n + 1) / 24); }

}  // namespace

double signed_rank_p(double w, size_t n) {
  if (n == 0) return 1;
  const double mean = static_cast<double>(n) * (n + 1) / 4;
  const double dist = std::fabs(w - mean);
  if (n > kExactLimit) return std::min(1.0, 2 * (1 - normal_cdf((dist - 0.5) / signed_rank_sd(n))));
  auto counts = signed_rank_counts(n);
  double total = 0, extreme = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    total += counts[k];
    if (std::fabs(static_cast<double>(k) - mean) >= dist - 1e-9) extreme += counts[k];
  }
  return std::min(1.0, extreme / total);
}

PairedEstimate paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  PairedEstimate e;
  std::vector<double> d;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] > 0 && b[i] > 0) d.push_back(std::log(b[i]) - std::log(a[i]));
  e.n = d.size();
  if (d.empty()) return e;
  // Walsh averages (d_i + d_j) / 2, i <= j: their median is the Hodges-Lehmann estimate.
  std::vector<double> walsh;
  for (size_t i = 0; i < d.size(); ++i)
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  std::sort(walsh.begin(), walsh.end());
  const size_t total = walsh.size();
  e.ratio = std::exp(total % 2 ? walsh[total / 2] : (walsh[total / 2 - 1] + walsh[total / 2]) / 2);
  // The interval [W_(k+1), W_(N-k)] with the largest k whose two-sided tail stays <= 5 %.
  size_t k = 0;
  double tail = 0;
  if (e.n > kExactLimit) {
    double kk = std::floor(static_cast<double>(total) / 2 - 1.959964 * signed_rank_sd(e.n));
    k = kk > 0 ? static_cast<size_t>(kk) : 0;
    tail = 0.025;
  } else {
    auto counts = signed_rank_counts(e.n);
    const double all = std::ldexp(1.0, static_cast<int>(e.n));
    while (k < total / 2) {
      double next = tail + counts[k] / all;
      if (2 * next > 0.05) break;
      tail = next;
      ++k;
    }
  }
  e.coverage = 1 - 2 * tail;
  e.ci_low = std::exp(walsh[k]);
  e.ci_high = std::exp(walsh[total - 1 - k]);
  // Signed-rank statistic: ranks of |d| (ties share their mean rank), summed over d > 0.
  std::vector<size_t> order(d.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return std::fabs(d[x]) < std::fabs(d[y]); });
  double w = 0;
  size_t nonzero = 0;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && std::fabs(d[order[j]]) == std::fabs(d[order[i]])) ++j;
    const double rank = (static_cast<double>(i) + 1 + static_cast<double>(j)) / 2;
    for (size_t m = i; m < j; ++m) {
      if (d[order[m]] > 0) w += rank;
      if (d[order[m]] != 0) ++nonzero;
    }
    i = j;
  }
  // A zero difference adds its rank to neither side (conservative; rare with real samples).
  e.p_value = nonzero == 0 ? 1 : signed_rank_p(w, e.n);
  return e;
}

}  // namespace vpnlab
