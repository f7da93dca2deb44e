#include "lab/results/report_pairwise.h"

#include "lab/results/product_compare.h"

namespace vpnlab {

PairwiseSection pairwise_section(const std::vector<SampleRow>& rows, const std::string& vs) {
  PairwiseSection out;
  out.reference = vs;
  for (const auto& r : rows)
    if (out.reference.empty() && r.product != "baseline") out.reference = r.product;
  if (out.reference.empty()) return out;
  auto grid = vs_rows(rows, out.reference, /*with_baseline=*/false);
  if (grid.empty()) return PairwiseSection{};
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
