// `vpnlab compare RUN A B` and the run table's "vs REF" block: products measured in the
// same rounds of one run, judged per test on throughput, CPU-s/Gbit, daemon peak RSS and
// p99 latency, round by round (lab/results/paired.h). The comparisons of one metric are one
// family, their intervals at 1 - alpha/N and their verdicts read off them, as `diff`'s
// across runs (lab/results/compare.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/results/compare.h"

namespace vpnlab {

// B against A: `product` = B, `reference` = A; ratios are B/A. n_a = n_b = the pairs.
struct ProductPair {
  std::string a, b;
};

// A product that is not a tunnel (the baselines: cipher "none") is the run's reference,
// never a contender.
bool is_reference_product(const SampleRow& r);
// The tunnels of a run in order of first appearance.
std::vector<std::string> tunnel_products(const std::vector<SampleRow>& rows);

// B against A in one test (B in `test_b` when given: two points of a sweep); a family of
// them is judged together.
struct PairInTest {
  std::string a, b, test;
  std::string test_b;
};
// One metric's family: every item's round-paired ratio with its interval at 1 - alpha/N
// and the verdict it says. Items where neither side measured the cost are left out.
std::vector<Comparison> compare_in_family(const std::vector<SampleRow>& rows, const std::vector<PairInTest>& items,
                                          const Metric& metric, double alpha = 0.05);

// Every pair x test (only `test` when given) x metric, in that order within each metric:
// throughput first, then the costs. A cost neither product measured (the baseline has no
// daemon) is left out; a pair with fewer than 2 rounds where both are valid is "not
// comparable" with its reason.
std::vector<Comparison> compare_products(const std::vector<SampleRow>& rows, const std::vector<ProductPair>& pairs,
                                         const std::string& test = "", double alpha = 0.05);

// The tests in `rows` where both products have rows at all ("" if none).
std::vector<std::string> shared_tests(const std::vector<SampleRow>& rows, const std::string& a, const std::string& b);

// What `compare` prints: one block per test, B/A and A/B with their intervals.
// The line that says each metric's family and interval level.
// "1.123 (1.090-1.160)" for B/A, or its mirror A/B (a t interval at the family's level); "-"
// when the pair was not comparable (no ratio).
std::string ratio_text(const Comparison& c, bool inverse = false);
std::string metric_families_note(const std::vector<Comparison>& cs);
std::string product_comparison_text(const std::vector<Comparison>& cs, const std::string& a, const std::string& b);

// Every other product over `ref` (the baselines among them unless left out), one row per
// product x test, with a cell per metric: "1.123 (1.090-1.160) faster", "... n.s.",
// "not comparable" or "-" (not judged: no such cost). The run table's --vs block and the
// report's product-vs-product section both show it.
struct VsRow {
  std::string product, test;
  std::vector<std::string> cells;  // Gbit/s, CPU-s/Gbit, daemon RSS, p99 latency
  std::optional<Comparison> gbps;  // the throughput comparison, when there is one
};
// `comparisons`, when given, receives the comparisons the cells were made from (their
// families' levels, for the note under a table).
std::vector<VsRow> vs_rows(const std::vector<SampleRow>& rows, const std::string& ref, bool with_baseline,
                           std::vector<Comparison>* comparisons = nullptr);
// The titles of VsRow::cells, in order.
const std::vector<std::string>& vs_metric_titles();

// The run table's block with --vs REF.
std::string vs_block(const std::vector<SampleRow>& rows, const std::string& ref);

}  // namespace vpnlab
