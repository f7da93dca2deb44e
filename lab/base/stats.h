// Statistics of repeated samples, for a noisy machine: the median with a distribution-free
// confidence interval (order statistics; no normality assumed) and the spread.
#pragma once
#include <cstddef>
#include <vector>

namespace vpnlab {

struct SampleStats {
  size_t n = 0;
  double median = 0, mean = 0, stdev = 0, cv = 0, min = 0, max = 0;
  double ci_low = 0, ci_high = 0;  // interval for the median
  double coverage = 0;             // what the interval really covers (0.95 needs n >= 6)
};

// Empty input gives n = 0.
SampleStats describe(std::vector<double> values);

// Jain's fairness index of shares x: (sum x)^2 / (n sum x^2), 1 when all are equal, 1/n when
// one has everything; 0 for no shares or none above 0.
double jain_index(const std::vector<double>& x);

// A proportion's exact (Clopper-Pearson) interval: `hits` of `n` trials, at `level` (0.95).
// It covers at least `level` for every true proportion. n = 0 gives [0, 1].
struct ProportionInterval {
  double low = 0, high = 1;
};
ProportionInterval proportion_interval(size_t hits, size_t n, double level);

}  // namespace vpnlab
