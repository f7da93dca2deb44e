// vpnlab-crr's percentiles in fixed memory: within the bucket's precision of the exact
// ones the generator took before, on spreads like a tunnel's (a tight body, a long tail).
#include "lab/generators/latency_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "lab/runtime/measurements.h"

namespace vpnlab {
namespace {

TEST(LatencyHistogram, QuantilesAreWithinATenthOfAPercentOfTheExactOnes) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> body(std::log(0.07), 0.2);  // rr on a veth: ~70 µs
  std::exponential_distribution<double> tail(0.5);                // and a tail of ms
  for (int trial = 0; trial < 5; ++trial) {
    LatencyHistogram h;
    std::vector<double> exact;
    for (int i = 0; i < 50000; ++i) {
      const double ms = i % 97 == 0 ? 0.07 + tail(rng) : body(rng);
      h.add(ms);
      exact.push_back(ms);
    }
    ASSERT_EQ(h.count(), exact.size());
    for (double q : {0.01, 0.5, 0.9, 0.99, 0.999, 1.0}) {
      const double want = LatencyProbe::quantile(exact, q);
      EXPECT_NEAR(h.quantile(q), want, want * 0.001) << "q " << q << " trial " << trial;
    }
  }
}

TEST(LatencyHistogram, FewValuesAndTheEdgesStayInsideWhatWasSeen) {
  LatencyHistogram h;
  EXPECT_EQ(h.quantile(0.5), 0);  // empty
  h.add(0.25);
  EXPECT_DOUBLE_EQ(h.quantile(0.0), 0.25);  // one value: that value, not its bucket's middle
  EXPECT_DOUBLE_EQ(h.quantile(0.999), 0.25);
  h.add(1e6);  // far beyond the last bucket (65 s): still the largest seen
  EXPECT_DOUBLE_EQ(h.quantile(1.0), 1e6);
  h.add(0.0);  // below the first bucket
  h.add(-3);   // a clock going backwards, and values no clock gives: counted as 0
  h.add(std::numeric_limits<double>::quiet_NaN());
  h.add(std::numeric_limits<double>::infinity());
  EXPECT_EQ(h.count(), 6u);
  EXPECT_DOUBLE_EQ(h.quantile(0.01), 0.0);
  EXPECT_DOUBLE_EQ(h.quantile(1.0), 1e6);
}

// The point of it: memory does not grow with the sample (it held one double per
// transaction, 430 MB for an hour of rr).
TEST(LatencyHistogram, MemoryIsFixed) {
  EXPECT_LE(sizeof(LatencyHistogram), 80u * 1024);
  LatencyHistogram h;
  for (int i = 0; i < 1000000; ++i) h.add(0.05 + (i % 1000) * 1e-4);
  EXPECT_EQ(h.count(), 1000000u);
  EXPECT_NEAR(h.quantile(0.5), 0.05 + 499 * 1e-4, 0.1 * 0.001);
}

}  // namespace
}  // namespace vpnlab
