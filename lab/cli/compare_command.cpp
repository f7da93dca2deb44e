#include "lab/cli/compare_command.h"

#include <algorithm>

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

}  // namespace

Status check_vs_product(const std::vector<SampleRow>& rows, const std::string& ref, const std::string& where) {
  auto products = products_of(rows);
  if (std::find(products.begin(), products.end(), ref) != products.end()) return ok_status();
  return make_error(where + " has no rows of product '" + ref + "'", "products in it: " + joined(products));
}

Result<CompareOutcome> compare_in_run(const std::string& run_dir, const std::string& a, const std::string& b, const std::string& test) {
  if (a == b) return make_error("compare: A and B are both '" + a + "'", "name two different products of the run");
  auto rows = read_results_csv(run_dir + "/results.csv");
  if (!rows) return with_context(rows.error(), "compare");
  for (const auto& p : {a, b})
    if (auto s = check_vs_product(*rows, p, run_dir + "/results.csv"); !s) return s.error();
  auto tests = shared_tests(*rows, a, b);
  if (tests.empty()) return make_error(run_dir + ": '" + a + "' and '" + b + "' ran no test in common", "compare products measured in one run");
  if (!test.empty() && std::find(tests.begin(), tests.end(), test) == tests.end())
    return make_error(run_dir + ": test '" + test + "' was not run by both '" + a + "' and '" + b + "'", "tests both ran: " + joined(tests));
  CompareOutcome out;
  out.run_id = rows->empty() ? "" : rows->front().run_id;
  out.a = a;
  out.b = b;
  out.comparisons = compare_products(*rows, {{a, b}}, test);
  out.text = "run " + out.run_id + "\n" + product_comparison_text(out.comparisons, a, b);
  return out;
}

}  // namespace vpnlab
