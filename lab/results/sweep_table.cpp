#include "lab/results/sweep_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "lab/base/text_table.h"
#include "lab/model/test_kinds.h"

namespace vpnlab {

namespace {

// The point's label in a table's header: "streams=8;length=64" -> "streams=8 length=64".
std::string point_label(const std::string& point) {
  std::string out = point;
  std::replace(out.begin(), out.end(), ';', ' ');
  return out;
}

size_t index_of(std::vector<std::string>& list, const std::string& item) {
  auto it = std::find(list.begin(), list.end(), item);
  if (it != list.end()) return static_cast<size_t>(it - list.begin());
  list.push_back(item);
  return list.size() - 1;
}

}  // namespace

std::string sweep_cell_text(const SampleStats& s) {
  if (s.n == 0) return "-";
  const int digits = s.median >= 100 ? 0 : s.median >= 10 ? 1 : 3;
  if (s.n < 2) return fmt::format("{:.{}f}", s.median, digits);
  return fmt::format("{:.{}f} [{:.{}f}, {:.{}f}]{}", s.median, digits, s.ci_low, digits, s.ci_high, digits,
                     s.coverage < 0.95 ? "*" : "");
}

std::vector<SweepCurves> summarize_sweeps(const std::vector<SampleRow>& rows) {
  std::vector<SweepCurves> out;
  std::map<std::string, size_t> by_test;
  // values[sweep][product][point]
  std::vector<std::vector<std::vector<std::vector<double>>>> values;
  for (const auto& r : rows) {
    if (r.sweep_of.empty()) continue;
    auto [it, added] = by_test.try_emplace(r.sweep_of, out.size());
    if (added) {
      SweepCurves c;
      c.test = r.sweep_of;
      const bool tx = r.is_transactions();
      c.metric = tx ? "tps" : "gbps";
      c.unit = tx ? test_kind(r.kind).counted + "/s" : "Gbit/s";
      out.push_back(std::move(c));
      values.emplace_back();
    }
    SweepCurves& c = out[it->second];
    size_t point = index_of(c.points, r.point);
    if (point == c.point_tests.size()) c.point_tests.push_back(r.test);
    size_t product = index_of(c.products, r.product);
    auto& v = values[it->second];
    if (v.size() <= product) v.resize(product + 1);
    for (auto& per_product : v) per_product.resize(c.points.size());
    if (!counts_as_result(r)) continue;
    v[product][point].push_back(c.metric == "tps" ? r.tps : r.gbps);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].cells.assign(out[i].products.size(), std::vector<SampleStats>(out[i].points.size()));
    for (size_t p = 0; p < out[i].products.size(); ++p)
      for (size_t q = 0; q < out[i].points.size() && q < values[i][p].size(); ++q)
        out[i].cells[p][q] = describe(values[i][p][q]);
  }
  return out;
}

std::string sweep_tables(const std::vector<SampleRow>& rows) {
  std::ostringstream o;
  for (const auto& c : summarize_sweeps(rows)) {
    std::vector<int> widths = {-20};
    std::vector<std::string> header = {"product"};
    for (const auto& p : c.points) {
      header.push_back(point_label(p));
      widths.push_back(-std::max<int>(24, static_cast<int>(point_label(p).size()) + 2));
    }
    const TextTable table(widths);
    o << "\nsweep '" << c.test << "': " << c.unit << ", median [95 % interval of the median] per point\n"
      << table.line(header);
    double lowest = 1;
    for (size_t p = 0; p < c.products.size(); ++p) {
      std::vector<std::string> line = {c.products[p]};
      for (const auto& cell : c.cells[p]) {
        line.push_back(sweep_cell_text(cell));
        if (cell.n > 1) lowest = std::min(lowest, cell.coverage);
      }
      o << table.line(line);
    }
    // An interval of few samples is [min, max]: said, never passed off as 95 %.
    if (lowest < 0.95) {
      std::string note;
      note =
          fmt::format("* fewer than 6 samples: the interval is [min, max] and covers the median with only {:.1f} %\n",
                      100 * lowest);
      o << note;
    }
  }
  return o.str();
}

nlohmann::json sweeps_json(const std::vector<SampleRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : summarize_sweeps(rows)) {
    nlohmann::json products = nlohmann::json::array();
    for (size_t p = 0; p < c.products.size(); ++p) {
      nlohmann::json cells = nlohmann::json::array();
      for (size_t q = 0; q < c.points.size(); ++q) {
        const SampleStats& s = c.cells[p][q];
        cells.push_back({{"point", c.points[q]},
                         {"test", c.point_tests[q]},
                         {"n", s.n},
                         {"median", s.median},
                         {"ci95_low", s.ci_low},
                         {"ci95_high", s.ci_high},
                         {"ci_coverage", s.coverage}});
      }
      products.push_back({{"product", c.products[p]}, {"cells", cells}});
    }
    out.push_back(
        {{"test", c.test}, {"metric", c.metric}, {"unit", c.unit}, {"points", c.points}, {"products", products}});
  }
  return out;
}

}  // namespace vpnlab
