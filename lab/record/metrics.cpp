#include "lab/record/metrics.h"

#include <algorithm>

#include "lab/record/figures.h"

namespace vpnlab {

const std::vector<MetricColumn>& metric_columns() {
  static const std::vector<MetricColumn> table = [] {
    std::vector<std::pair<int, MetricColumn>> ranked;
    for (const auto& f : figures()) {
      if (!f.metric) continue;
      const MetricFacet& m = *f.metric;
      ranked.push_back(
          {m.rank,
           MetricColumn{f.name, m.title, m.higher_is_better, m.better, m.worse, m.judged, m.value ? m.value : f.number,
                        m.measured ? m.measured : [](const SampleRow&) { return true; },
                        m.table_head ? m.table_head : "", m.table_width, m.format, m.scale, m.table_rank}});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<MetricColumn> out;
    for (auto& [rank, column] : ranked) out.push_back(std::move(column));
    return out;
  }();
  return table;
}

// Derived once from the table, as metric_columns is: the report asks for it per row.
const std::vector<const MetricColumn*>& tabled_metrics() {
  static const std::vector<const MetricColumn*> tabled = [] {
    std::vector<const MetricColumn*> out;
    for (const auto& m : metric_columns())
      if (!m.table_head.empty()) out.push_back(&m);
    std::stable_sort(out.begin(), out.end(),
                     [](const MetricColumn* a, const MetricColumn* b) { return a->table_rank < b->table_rank; });
    return out;
  }();
  return tabled;
}

const MetricColumn& metric_column(const std::string& key) {
  for (const auto& m : metric_columns())
    if (m.key == key) return m;
  return metric_columns().front();
}

}  // namespace vpnlab
