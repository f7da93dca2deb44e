// `vpnlab compare RUN A B` and the run table's "vs REF" block: products measured in the
// same rounds of one run, judged per test on throughput, CPU-s/Gbit, daemon peak RSS and
// p99 latency, round by round (lab/results/paired.h), Holm-corrected per metric across
// the tests and products judged together, as `diff` does across runs.
#pragma once
#include <string>
#include <vector>

#include "lab/results/compare.h"

namespace vpnlab {

// B against A: `product` = B, `reference` = A; ratios are B/A. n_a = n_b = the pairs.
struct ProductPair {
  std::string a, b;
};

// Every pair x test (only `test` when given) x metric, in that order within each metric:
// throughput first, then the costs. A cost neither product measured (the baseline has no
// daemon) is left out; a pair with fewer than 2 rounds where both are valid is "not
// comparable" with its reason.
std::vector<Comparison> compare_products(const std::vector<SampleRow>& rows, const std::vector<ProductPair>& pairs, const std::string& test = "",
                                         double alpha = 0.05);

// The tests in `rows` where both products have rows at all ("" if none).
std::vector<std::string> shared_tests(const std::vector<SampleRow>& rows, const std::string& a, const std::string& b);

// What `compare` prints: one block per test, B/A and A/B with their intervals.
std::string product_comparison_text(const std::vector<Comparison>& cs, const std::string& a, const std::string& b);

// The run table's block with --vs REF: every other product against REF, one line per
// product x test, each metric as "B/A (interval) verdict".
std::string vs_block(const std::vector<SampleRow>& rows, const std::string& ref);

}  // namespace vpnlab
