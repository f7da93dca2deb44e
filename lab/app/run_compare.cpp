#include "lab/app/run_compare.h"

#include "lab/results/sweep_effects.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>

namespace vpnlab {

namespace {

std::vector<std::string> products_of(const std::vector<SampleRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (std::find(out.begin(), out.end(), r.product) == out.end()) out.push_back(r.product);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

// The comparison of A and B in `rows` (only `test` when given): verdicts and their text.
CompareOutcome outcome_of(const std::vector<SampleRow>& rows, const std::string& a, const std::string& b,
                          const std::string& test) {
  CompareOutcome out;
  out.run_id = rows.empty() ? "" : rows.front().run_id;
  out.a = a;
  out.b = b;
  out.comparisons = compare_products(rows, {{a, b}}, test);
  out.text = "run " + out.run_id + "\n" + product_comparison_text(out.comparisons, a, b);
  return out;
}

// "wireguard-go:stream-8" or "wireguard-go:streams=8": one test of one product, by the
// test's name or by its sweep point (when one test of the product has that point).
Result<std::string> test_of(const std::vector<SampleRow>& rows, const std::string& product, const std::string& what) {
  std::vector<std::string> tests, by_point;
  for (const auto& r : rows) {
    if (r.product != product) continue;
    if (std::find(tests.begin(), tests.end(), r.test) == tests.end()) tests.push_back(r.test);
    if (r.point == what && std::find(by_point.begin(), by_point.end(), r.test) == by_point.end())
      by_point.push_back(r.test);
  }
  if (std::find(tests.begin(), tests.end(), what) != tests.end()) return what;
  if (by_point.size() == 1) return by_point.front();
  if (by_point.size() > 1)
    return make_error("point '" + what + "' of '" + product + "' is in several tests: " + joined(by_point),
                      "name the test instead");
  return make_error("'" + product + "' has no test or sweep point '" + what + "'", "its tests: " + joined(tests));
}

// One question, one answer: when the run's effects table (compare RUN --effects, the report)
// asks the same question, X to Y of one product, among all its effects together, say what
// it answered and why the two may differ. Seen: Nebula's conntrack cost "no significant
// difference" in the table (6 intervals at 99.2 %) and "slower" here (one at 95 %).
std::string same_question_in_effects(const std::vector<SampleRow>& rows, const std::string& product,
                                     const std::string& x, const std::string& y, const std::vector<Comparison>& here) {
  for (const auto& e : sweep_effects(rows)) {
    if (e.c.product != product || e.c.ratio <= 0) continue;
    const bool same = e.from_test == x && e.to_test == y, turned = e.from_test == y && e.to_test == x;
    if (!same && !turned) continue;
    auto mine = std::find_if(here.begin(), here.end(), [&](const Comparison& c) { return c.metric == e.c.metric; });
    if (mine == here.end()) continue;
    std::string buf;
    const double r = same ? e.c.ratio : 1 / e.c.ratio, lo = same ? e.c.ci_low : 1 / e.c.ci_high,
                 hi = same ? e.c.ci_high : 1 / e.c.ci_low;
    buf = fmt::format(
        "the run's effects table asks this question with {} others of its figure together (each interval at {:.4g} "
        "%): {} {:.3f} ({:.3f}-{:.3f}), {}; "
        "here it is asked alone ({:.4g} %){}\n",
        e.c.family - 1, 100 * e.c.level, e.unit, r, lo, hi, e.c.verdict, 100 * mine->level,
        mine->verdict == e.c.verdict ? ": the same answer"
                                     : ": the answers differ only by how many questions are asked at once; the "
                                       "table's holds for all of them together");
    return buf;
  }
  return "";
}

// Two tests of one product, A = P:X and B = P:Y: their rows as two stand-in products of one
// shared test, so the pairing by round (sample i of X with sample i of Y: the same bring-up)
// and the intervals are those of two products.
Result<CompareOutcome> compare_within_product(const std::vector<SampleRow>& rows, const std::string& a,
                                              const std::string& b) {
  const std::string product = a.substr(0, a.find(':'));
  if (b.substr(0, b.find(':')) != product)
    return make_error("compare: '" + a + "' and '" + b + "' are of two products",
                      "compare PRODUCT:X PRODUCT:Y, or two products");
  if (auto s = check_vs_product(rows, product, "the run"); !s) return s.error();
  auto x = test_of(rows, product, a.substr(a.find(':') + 1));
  if (!x) return x.error();
  auto y = test_of(rows, product, b.substr(b.find(':') + 1));
  if (!y) return y.error();
  if (*x == *y)
    return make_error("compare: '" + a + "' and '" + b + "' are one test ('" + *x + "')", "name two tests or points");
  const std::string shared = *x + " vs " + *y;
  std::vector<SampleRow> two;
  for (const auto& r : rows) {
    if (r.product != product || (r.test != *x && r.test != *y)) continue;
    SampleRow copy = r;
    copy.product = r.test == *x ? a : b;
    copy.test = shared;
    two.push_back(std::move(copy));
  }
  CompareOutcome out = outcome_of(two, a, b, shared);
  out.text += same_question_in_effects(rows, product, *x, *y, out.comparisons);
  return out;
}

}  // namespace

Status check_vs_product(const std::vector<SampleRow>& rows, const std::string& ref, const std::string& where) {
  auto products = products_of(rows);
  if (std::find(products.begin(), products.end(), ref) != products.end()) return ok_status();
  return make_error(where + " has no rows of product '" + ref + "'", "products in it: " + joined(products));
}

Result<CompareOutcome> compare_in_run(const std::string& run_dir, const std::string& a, const std::string& b,
                                      const std::string& test) {
  if (a == b) return make_error("compare: A and B are both '" + a + "'", "name two different products of the run");
  auto rows = read_results_csv(run_dir + "/results.csv");
  if (!rows) return with_context(rows.error(), "compare");
  if (a.find(':') != std::string::npos || b.find(':') != std::string::npos) {
    if (a.find(':') == std::string::npos || b.find(':') == std::string::npos)
      return make_error("compare: '" + (a.find(':') == std::string::npos ? a : b) + "' names no test",
                        "two tests of one product: PRODUCT:TEST PRODUCT:TEST (or :POINT)");
    if (!test.empty())
      return make_error("compare: --test and PRODUCT:TEST together", "drop --test: A and B name their tests");
    return compare_within_product(*rows, a, b);
  }
  for (const auto& p : {a, b})
    if (auto s = check_vs_product(*rows, p, run_dir + "/results.csv"); !s) return s.error();
  auto tests = shared_tests(*rows, a, b);
  if (tests.empty())
    return make_error(run_dir + ": '" + a + "' and '" + b + "' ran no test in common",
                      "compare products measured in one run");
  if (!test.empty() && std::find(tests.begin(), tests.end(), test) == tests.end())
    return make_error(run_dir + ": test '" + test + "' was not run by both '" + a + "' and '" + b + "'",
                      "tests both ran: " + joined(tests));
  return outcome_of(*rows, a, b, test);
}

Result<EffectsOutcome> effects_in_run(const std::string& run_dir) {
  auto rows = read_results_csv(run_dir + "/results.csv");
  if (!rows) return with_context(rows.error(), "compare");
  EffectsOutcome out;
  out.run_id = rows->empty() ? "" : rows->front().run_id;
  out.effects = sweep_effects(*rows);
  if (out.effects.empty())
    return make_error(run_dir + "/results.csv: no test is swept on two values, so there is no effect to give",
                      "sweep a test (sweep = { streams = [1, 8] }) or the lab ([bench] sweep = { underlay_mtu = [1500, "
                      "9000] }); compare RUN A B "
                      "compares two products");
  out.text = "run " + out.run_id + "\n" + sweep_effects_text(out.effects).substr(1);
  return out;
}

}  // namespace vpnlab
