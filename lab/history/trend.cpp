#include "lab/history/trend.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <map>

#include "lab/base/sequential.h"
#include "lab/history/detector.h"
#include "lab/history/version_order.h"
#include "lab/record/metrics.h"
#include "lab/results/paired.h"
#include "lab/results/provenance.h"

namespace vpnlab {

namespace {

const HistoryMetric& ratio_metric() {
  static const HistoryMetric m{"ratio", "ratio to the same run's baseline", true, "faster", "slower"};
  return m;
}

// One run's point of `product` in `test`; n = 0 when the run measured nothing for it.
TrendPoint run_point(const RunRecord& run, const std::string& product, const std::string& test,
                     const HistoryMetric& metric) {
  TrendPoint p;
  p.run_id = run.run_id;
  p.started = run.started;
  p.product = product;
  const auto version = nlohmann::json::json_pointer("/products/" + product + "/version");
  if (run.environment.contains(version) && run.environment.at(version).is_string())
    p.version = version_token(run.environment.at(version).get<std::string>());
  if (metric.key == "ratio") {
    const auto gbps = [](const SampleRow& r) { return r.gbps; };
    std::vector<double> a, b;
    pair_rounds(values_by_round(run.rows, "baseline", test, gbps), values_by_round(run.rows, product, test, gbps), &a,
                &b);
    if (a.empty()) return p;
    const PairedEstimate e = paired_ratio(a, b, kTrendPointLevel);
    p.n = e.n, p.value = e.ratio;
    p.low = e.n >= 2 ? e.ci_low : e.ratio, p.high = e.n >= 2 ? e.ci_high : e.ratio;
    return p;
  }
  const MetricColumn& column = metric_column(metric.key);
  std::vector<double> values;
  for (const auto& r : run.rows)
    if (r.product == product && r.test == test && counts_as_result(r) && column.measured(r) && column.value(r) > 0)
      values.push_back(column.value(r));
  if (values.empty()) return p;
  const RatioInterval g = ratio_interval(values, kTrendPointLevel);  // a geometric mean and its t interval
  p.n = g.n, p.value = g.ratio;
  p.low = g.n >= 2 ? g.low : g.ratio, p.high = g.n >= 2 ? g.high : g.ratio;
  return p;
}

bool wanted(const std::string& product, const TrendQuery& q) {
  return q.product.empty() || product == q.product || base_product(product) == q.product;
}

}  // namespace

std::string history_figure(double v) { return fmt::format("{:.4g}", v); }

std::string base_product(const std::string& product) { return product.substr(0, product.find('@')); }

Result<HistoryMetric> history_metric(const std::string& key) {
  if (key == "ratio") return ratio_metric();
  for (const auto& c : metric_columns())
    if (c.key == key) return HistoryMetric{c.key, c.title, c.higher_is_better, c.better, c.worse};
  std::string keys;
  for (const auto& k : history_metric_keys()) keys += (keys.empty() ? "" : ", ") + k;
  return make_error("'" + key + "' is not a metric the history has", "give --metric one of: " + keys);
}

std::vector<std::string> history_metric_keys() {
  std::vector<std::string> keys = {"ratio"};
  for (const auto& c : metric_columns()) keys.push_back(c.key);
  return keys;
}

TrendBuilder::TrendBuilder(TrendQuery query, HistoryMetric metric)
    : query_(std::move(query)), metric_(std::move(metric)) {}

void TrendBuilder::add(const RunRecord& run) {
  const std::string key = comparability_key(run.environment);
  std::vector<std::pair<std::string, std::string>> seen;  // (product, test) in row order
  for (const auto& r : run.rows)
    if (wanted(r.product, query_) && (query_.test.empty() || r.test == query_.test) &&
        !(metric_.key == "ratio" && r.product == "baseline") &&
        std::find(seen.begin(), seen.end(), std::make_pair(r.product, r.test)) == seen.end())
      seen.emplace_back(r.product, r.test);
  for (const auto& [product, test] : seen) {
    TrendPoint p = run_point(run, product, test, metric_);
    if (p.n == 0) continue;
    const auto id = std::make_pair(query_.by_version ? base_product(product) : product, test);
    auto [it, fresh] = series_.try_emplace(id);
    if (fresh) {
      order_.push_back(id);
      it->second.trend.product = id.first, it->second.trend.test = test, it->second.trend.metric = metric_;
    }
    it->second.points.emplace_back(key, p);
    it->second.newest_key = key;
    it->second.newest_text = comparability_text(run.environment);
  }
}

std::vector<Trend> TrendBuilder::finish() {
  std::vector<Trend> out;
  for (const auto& id : order_) {
    Collected& c = series_[id];
    c.trend.environment = c.newest_text;
    for (auto& [key, p] : c.points) (key == c.newest_key ? c.trend.points : c.trend.apart).push_back(p);
    if (query_.by_version)  // by version, then by time within one version (the sort is stable)
      std::stable_sort(c.trend.points.begin(), c.trend.points.end(), [](const TrendPoint& a, const TrendPoint& b) {
        return compare_versions(a.version, b.version) < 0;
      });
    std::vector<double> values;
    for (const auto& p : c.trend.points) values.push_back(p.value);
    for (size_t i : change_points(values)) c.trend.points[i].change_point = true;
    out.push_back(std::move(c.trend));
  }
  series_.clear();
  order_.clear();
  return out;
}

std::vector<Trend> build_trends(const std::vector<RunRecord>& runs, const TrendQuery& query,
                                const HistoryMetric& metric) {
  TrendBuilder builder(query, metric);
  for (const auto& run : runs) builder.add(run);
  return builder.finish();
}

Result<std::vector<Trend>> load_trends(HistoryStore& store, const TrendQuery& query, const HistoryMetric& metric) {
  TrendBuilder builder(query, metric);
  auto s = store.for_each_run(query.product, [&](const RunRecord& run) {
    builder.add(run);
    return ok_status();
  });
  if (!s) return s.error();
  return builder.finish();
}

}  // namespace vpnlab
