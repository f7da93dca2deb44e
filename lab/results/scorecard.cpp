#include "lab/results/scorecard.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <numeric>

#include "lab/record/metrics.h"
#include "lab/record/results_csv.h"
#include "lab/results/run_files.h"
#include "lab/results/summary.h"

namespace vpnlab {

namespace {

using nlohmann::json;

bool better(double a, double b, bool higher_is_better) { return higher_is_better ? a > b : a < b; }
bool overlap(const RankedValue& a, const RankedValue& b) { return a.low <= b.high && b.low <= a.high; }

// "faster"/"slower"/"not different": the cell's interval against the baseline's. Gbit/s is
// judged by the round-paired ratio's interval (against 1), other figures by the two medians'
// intervals (disjoint: a difference).
std::string verdict_vs_baseline(const MetricColumn& m, const ProductTestSummary& s, const ProductTestSummary* base) {
  if (s.product == "baseline" || !base) return "";
  if (m.key == "gbps") {
    if (s.baseline_ratio.n < 2) return "";
    if (s.baseline_ratio.high < 1) return m.worse;
    if (s.baseline_ratio.low > 1) return m.better;
    return "not different";
  }
  const SampleStats& a = s.metric(m.key);
  const SampleStats& b = base->metric(m.key);
  if (a.n == 0 || b.n == 0) return "";
  if (a.ci_high < b.ci_low) return m.higher_is_better ? m.worse : m.better;
  if (a.ci_low > b.ci_high) return m.higher_is_better ? m.better : m.worse;
  return "not different";
}

double days_between(const std::string& then_utc, const std::string& now_utc) {
  auto parse = [](const std::string& t) -> std::time_t {
    std::tm tm{};
    if (!strptime(t.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return -1;
    return timegm(&tm);
  };
  const std::time_t a = parse(then_utc), b = parse(now_utc);
  return a < 0 || b < 0 ? -1 : std::difftime(b, a) / 86400.0;
}

// Where a cell's figures come from: the product's version, the kernel, the date.
json provenance_of(const json& env, const std::string& product, const std::string& now_utc) {
  json p = json::object();
  const std::string name = product.substr(0, product.find('='));
  if (env.contains("products") && env["products"].contains(name) && env["products"][name].contains("version"))
    p["version"] = env["products"][name]["version"];
  if (env.contains("kernel") && env["kernel"].contains("release")) p["kernel"] = env["kernel"]["release"];
  if (env.contains("vpnlab_version")) p["vpnlab"] = env["vpnlab_version"];
  const std::string started = env.value("started", "");
  p["date"] = started;
  const double age = days_between(started, now_utc);
  p["age_days"] = age < 0 ? json(nullptr) : json(std::round(age * 10) / 10);
  p["stale"] = age > kStaleAfterDays;
  return p;
}

std::string reproduce_line(const ScorecardScenario& sc, const std::vector<ProductTestSummary>& summaries) {
  std::string line = "vpnlab run " + sc.topology;
  std::vector<std::string> seen;
  for (const auto& s : summaries)
    if (std::find(seen.begin(), seen.end(), s.product) == seen.end()) {
      seen.push_back(s.product);
      line += " --product " + s.product;
    }
  return line;
}

// The cells of one metric of one test: value, interval, verdicts, tier.
void add_metric_cells(const MetricColumn& m, const std::vector<const ProductTestSummary*>& group, const ScorecardScenario& sc, const json& env,
                      const std::string& now_utc, json* cells) {
  const ProductTestSummary* base = nullptr;
  for (const auto* s : group)
    if (s->product == "baseline") base = s;
  std::vector<const ProductTestSummary*> measured;
  std::vector<RankedValue> ranked;
  for (const auto* s : group) {
    const SampleStats& st = s->metric(m.key);
    if (st.n == 0 || (m.key == "gbps" && st.median <= 0)) continue;
    measured.push_back(s);
    ranked.push_back({st.median, st.ci_low, st.ci_high});
  }
  // The leader is a tunnel's: the baseline is the ceiling they are measured against.
  std::vector<RankedValue> tunnels;
  std::vector<size_t> tunnel_at;
  for (size_t i = 0; i < measured.size(); ++i)
    if (measured[i]->product != "baseline") tunnels.push_back(ranked[i]), tunnel_at.push_back(i);
  const std::vector<int> tiers = tiers_of(tunnels, m.higher_is_better);
  for (size_t i = 0; i < measured.size(); ++i) {
    const ProductTestSummary& s = *measured[i];
    const SampleStats& st = s.metric(m.key);
    json c = {{"scenario", sc.name}, {"test", s.test}, {"product", s.product}, {"metric", m.key}, {"title", m.title},
              {"value", st.median}, {"interval", {st.ci_low, st.ci_high}}, {"coverage", st.coverage}, {"n", st.n},
              {"higher_is_better", m.higher_is_better}, {"run", sc.run}};
    c["mde"] = st.median > 0 ? std::max(st.ci_high / st.median - 1, 1 - st.ci_low / st.median) : 0.0;
    if (m.key == "gbps" && s.baseline_ratio.n >= 2 && s.product != "baseline") {
      c["ratio_to_baseline"] = {{"value", s.baseline_ratio.ratio}, {"interval", {s.baseline_ratio.low, s.baseline_ratio.high}}, {"n", s.baseline_ratio.n}};
      c["mde"] = s.baseline_ratio.half_width;
    }
    c["verdict_vs_baseline"] = verdict_vs_baseline(m, s, base);
    const auto at = std::find(tunnel_at.begin(), tunnel_at.end(), i);
    if (at != tunnel_at.end()) {
      const int tier = tiers[static_cast<size_t>(at - tunnel_at.begin())];
      c["tier"] = tier;
      c["verdict_vs_leader"] = tier == 1 ? (tunnels.size() > 1 ? "leader or tied with it" : "leader") : "behind the leader";
    }
    c["provenance"] = provenance_of(env, s.product, now_utc);
    cells->push_back(std::move(c));
  }
}

// A product x test without one valid row: a cell that says why, never a missing bar.
json failure_cell(const ScorecardScenario& sc, const ProductTestSummary& s, const std::vector<SampleRow>& rows) {
  std::string reason = "no valid sample";
  for (const auto& r : rows)
    if (r.product == s.product && r.test == s.test && !r.reason.empty()) {
      reason = r.reason;
      break;
    }
  return {{"scenario", sc.name}, {"test", s.test}, {"product", s.product}, {"metric", "gbps"}, {"title", "Gbit/s"}, {"value", nullptr},
          {"interval", nullptr}, {"run", sc.run}, {"failure", reason}, {"not_run", s.not_run == s.rows}};
}

json scenario_json(const ScorecardScenario& sc, const json& env) {
  json j = {{"name", sc.name}, {"topology", sc.topology}, {"state", sc.state}, {"run", sc.run}, {"error", sc.error}, {"tests", sc.tests}};
  if (env.contains("sampling") && env["sampling"].is_object()) {
    const json& s = env["sampling"];
    j["sampling"] = {{"stopped", s.value("stopped", "")}, {"precision", s.value("precision", 0.0)},
                     {"widest_half_width", s.contains("widest_half_width") ? s["widest_half_width"] : json(nullptr)}};
    j["reached_precision"] = s.value("stopped", "").rfind("target met", 0) == 0;
  }
  return j;
}

}  // namespace

std::vector<int> tiers_of(const std::vector<RankedValue>& values, bool higher_is_better) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return better(values[a].value, values[b].value, higher_is_better); });
  std::vector<int> tier(values.size(), 0);
  int current = 0;
  size_t head = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || !overlap(values[order[k]], values[head])) {
      ++current;
      head = order[k];
    }
    tier[order[k]] = current;
  }
  return tier;
}

json scorecard_json(const std::string& suite_name, const std::string& suite_file, const std::string& out_dir,
                    const std::vector<ScorecardScenario>& scenarios, const std::string& now_utc) {
  json out = {{"schema", kScorecardSchema}, {"suite", suite_name}, {"file", suite_file}, {"generated", now_utc},
              {"stale_after_days", kStaleAfterDays}, {"scenarios", json::array()}, {"cells", json::array()}};
  for (ScorecardScenario sc : scenarios) {
    json env = json::object();
    std::vector<SampleRow> rows;
    if (!sc.run.empty()) {
      const std::string dir = out_dir + "/" + sc.run;
      auto e = read_environment(dir, /*required=*/false);
      auto r = read_results_csv(dir + "/results.csv", /*drop_torn_tail=*/true);
      if (!e || !r) sc.error = (!e ? e.error() : r.error()).format();
      if (e) env = *e;
      if (r) rows = std::move(*r);
    }
    out["scenarios"].push_back(scenario_json(sc, env));
    const auto summaries = summarize(rows);
    for (const auto& s : summaries) {
      const bool measured = std::any_of(s.metrics.begin(), s.metrics.end(), [](const auto& m) { return m.second.n > 0; });
      if (!measured && s.rows > 0) out["cells"].push_back(failure_cell(sc, s, rows));
    }
    std::map<std::string, std::vector<const ProductTestSummary*>> by_test;
    std::vector<std::string> tests;
    for (const auto& s : summaries) {
      if (!by_test.count(s.test)) tests.push_back(s.test);
      by_test[s.test].push_back(&s);
    }
    for (const auto& t : tests)
      for (const auto& m : metric_columns())
        if (m.key == "gbps" || m.judged) add_metric_cells(m, by_test[t], sc, env, now_utc, &out["cells"]);
    out["scenarios"].back()["reproduce"] = reproduce_line(sc, summaries);
  }
  return out;
}

}  // namespace vpnlab
