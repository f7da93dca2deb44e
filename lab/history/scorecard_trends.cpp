#include "lab/history/scorecard_trends.h"

#include <map>
#include <utility>

#include "lab/history/trend.h"

namespace vpnlab {

namespace {

using nlohmann::json;

// The history's figure behind a headline cell: the ratio for a tunnel's Gbit/s, else the figure.
std::string trend_metric(const json& cell) {
  const std::string metric = cell.value("metric", "");
  return metric == "gbps" && cell.value("product", "") != "baseline" ? "ratio" : metric;
}

json trend_json(const Trend& t) {
  json points = json::array();
  for (const auto& p : t.points)
    points.push_back({{"version", p.version},
                      {"run_id", p.run_id},
                      {"date", p.started},
                      {"value", p.value},
                      {"low", p.low},
                      {"high", p.high},
                      {"n", p.n},
                      {"change_point", p.change_point}});
  return {{"metric", t.metric.key}, {"environment", t.environment}, {"points", points}};
}

}  // namespace

Status add_scorecard_trends(HistoryStore& store, json* scorecard) {
  // One pass over the history per product and figure, whatever the number of its cells.
  std::map<std::pair<std::string, std::string>, std::vector<Trend>> loaded;
  for (auto& cell : (*scorecard)["cells"]) {
    if (!cell.value("headline", false) || cell.contains("failure")) continue;
    const std::string base = base_product(cell.value("product", ""));
    const std::string metric = trend_metric(cell);
    const auto key = std::make_pair(base, metric);
    if (!loaded.count(key)) {
      auto m = history_metric(metric);
      if (!m) continue;  // a figure the history does not follow
      auto trends = load_trends(store, TrendQuery{base, "", metric, /*by_version=*/true}, *m);
      if (!trends) return trends.error();
      loaded[key] = std::move(*trends);
    }
    for (const auto& t : loaded[key])
      if (t.product == base && t.test == cell.value("test", "") && t.points.size() >= 2) cell["trend"] = trend_json(t);
  }
  return ok_status();
}

}  // namespace vpnlab
