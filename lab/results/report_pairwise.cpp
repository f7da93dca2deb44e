#include "lab/results/report_pairwise.h"

#include <algorithm>

#include "lab/results/product_compare.h"

namespace vpnlab {

PairwiseSection pairwise_section(const std::vector<SampleRow>& rows, const std::string& vs) {
  PairwiseSection out;
  out.reference = vs;
  if (out.reference.empty())
    if (auto tunnels = tunnel_products(rows); !tunnels.empty()) out.reference = tunnels.front();
  if (out.reference.empty()) return out;
  auto grid = vs_rows(rows, out.reference, /*with_baseline=*/false);
  if (grid.empty()) return PairwiseSection{};
  std::vector<std::string> tests;
  for (const auto& r : grid)
    if (std::find(tests.begin(), tests.end(), r.test) == tests.end()) tests.push_back(r.test);
  std::stable_sort(grid.begin(), grid.end(), [&](const VsRow& x, const VsRow& y) {
    if (x.test != y.test)
      return std::find(tests.begin(), tests.end(), x.test) < std::find(tests.begin(), tests.end(), y.test);
    return (x.gbps ? x.gbps->ratio : 0) > (y.gbps ? y.gbps->ratio : 0);
  });
  out.rows.push_back({"product", "test"});
  for (const auto& t : vs_metric_titles()) out.rows[0].push_back(t);
  for (const auto& r : grid) {
    std::vector<std::string> row = {r.product, r.test};
    row.insert(row.end(), r.cells.begin(), r.cells.end());
    out.rows.push_back(row);
    if (r.gbps) out.gbps_bars[r.test].push_back({r.product, r.gbps->ratio, r.gbps->ci_low, r.gbps->ci_high});
  }
  return out;
}

}  // namespace vpnlab
