// Two products measured in the same rounds of one run: each round gives a pair (A's
// sample i, B's sample i), measured minutes apart on the same machine, so what drifts for
// the whole machine cancels within the pair. The paired analogue of `diff`'s statistics:
// the ratio B/A is exp(Hodges-Lehmann estimate of the log ratios: the median of their
// Walsh averages), its 95 % interval comes from the order statistics of the Walsh averages
// at the Wilcoxon signed-rank quantiles, and the p-value from the exact signed-rank
// distribution (normal approximation beyond 60 pairs). Distribution-free, like `diff`.
#pragma once
#include <cstddef>
#include <vector>

namespace vpnlab {

struct PairedEstimate {
  size_t n = 0;                    // pairs used (both values > 0)
  double ratio = 0;                // B / A
  double ci_low = 0, ci_high = 0;  // its 95 % interval
  double coverage = 0;             // what the interval really covers (< 0.95 with fewer than 6 pairs)
  double p_value = 1;              // two-sided, H0: the log ratio is symmetric about 0
};

// Two-sided exact p-value of the signed-rank statistic w (sum of the ranks of the positive
// differences) for n non-zero differences.
double signed_rank_p(double w, size_t n);

// a[i] and b[i] are one round's values; pairs with a value <= 0 are left out.
PairedEstimate paired_ratio(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace vpnlab
