#include "lab/results/scorecard.h"

#include "lab/results/hand_recipe.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <numeric>

#include "lab/record/metrics.h"
#include "lab/record/results_csv.h"
#include "lab/results/run_files.h"
#include "lab/results/summary.h"
#include "lab/results/transactions_table.h"

namespace vpnlab {

namespace {

using nlohmann::json;

bool better(double a, double b, bool higher_is_better) { return higher_is_better ? a > b : a < b; }
bool overlap(const RankedValue& a, const RankedValue& b) { return a.low <= b.high && b.low <= a.high; }

// One figure of the scorecard: its key, title, and which way is better.
struct Figure {
  std::string key, title;
  bool higher_is_better = true;
  std::string better, worse;
  bool headline = false;  // the scenario table's cell: judged by its round-paired ratio to the baseline
};

// What one product x test measured, whichever table its kind belongs to.
struct Measured {
  std::string product, test;
  int rows = 0, not_run = 0;
  std::map<std::string, SampleStats> stats;
  RatioInterval ratio;  // the headline's round-paired ratio to the baseline
  const std::vector<Figure>* figures = nullptr;
  std::vector<double> headline_samples;  // every valid sample's headline figure, in sample order
  bool any() const {
    return std::any_of(stats.begin(), stats.end(), [](const auto& kv) { return kv.second.n > 0; });
  }
};

const std::vector<Figure>& throughput_figures() {
  static const std::vector<Figure> f = [] {
    std::vector<Figure> out;
    for (const auto& m : metric_columns())
      if (m.key == "gbps" || m.judged)
        out.push_back({m.key, m.title, m.higher_is_better, m.better, m.worse, m.key == "gbps"});
    return out;
  }();
  return f;
}

const std::vector<Figure>& transaction_figures() {
  static const std::vector<Figure> f = {{"tps", "transactions/s", true, "faster", "slower", true},
                                        {"p99_ms", "p99 ms", false, "lower", "higher", false},
                                        {"cpu_us_per_tx", "CPU-us/tx", false, "cheaper", "costlier", false}};
  return f;
}

// The samples behind a headline: the rows that count as results, as measured.
std::vector<double> samples_of(const std::vector<SampleRow>& rows, const std::string& product, const std::string& test,
                               bool transactions) {
  std::vector<double> v;
  for (const auto& r : rows)
    if (r.product == product && r.test == test && counts_as_result(r)) v.push_back(transactions ? r.tps : r.gbps);
  return v;
}

std::vector<Measured> measured_of(const std::vector<SampleRow>& rows) {
  std::vector<Measured> out;
  for (const auto& s : summarize(rows)) {
    Measured m{s.product,
               s.test,
               s.rows,
               s.not_run,
               s.metrics,
               s.baseline_ratio,
               &throughput_figures(),
               samples_of(rows, s.product, s.test, false)};
    out.push_back(std::move(m));
  }
  for (const auto& t : summarize_transactions(rows)) {
    Measured m{t.product,
               t.test,
               t.rows,
               0,
               {{"tps", t.tps}, {"p99_ms", t.p99_ms}, {"cpu_us_per_tx", t.cpu_us_per_tx}},
               t.baseline_ratio,
               &transaction_figures(),
               samples_of(rows, t.product, t.test, true)};
    out.push_back(std::move(m));
  }
  return out;
}

// "faster"/"slower"/"not different": the cell's interval against the baseline's. The
// headline is judged by the round-paired ratio's interval (against 1), other figures by the
// two medians' intervals (disjoint: a difference).
std::string verdict_vs_baseline(const Figure& f, const Measured& s, const Measured* base) {
  if (s.product == "baseline" || !base) return "";
  if (f.headline) {
    if (s.ratio.n < 2) return "";
    if (s.ratio.high < 1) return f.worse;
    if (s.ratio.low > 1) return f.better;
    return "not different";
  }
  const SampleStats& a = s.stats.at(f.key);
  const SampleStats& b = base->stats.at(f.key);
  if (a.n == 0 || b.n == 0) return "";
  if (a.ci_high < b.ci_low) return f.higher_is_better ? f.worse : f.better;
  if (a.ci_low > b.ci_high) return f.higher_is_better ? f.better : f.worse;
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

std::string reproduce_line(const ScorecardScenario& sc, const std::vector<SampleRow>& rows) {
  std::string line = "vpnlab run " + sc.topology;
  std::vector<std::string> seen;
  for (const auto& s : rows)
    if (std::find(seen.begin(), seen.end(), s.product) == seen.end()) {
      seen.push_back(s.product);
      line += " --product " + s.product;
    }
  for (const auto& t : sc.tests) line += " --test " + t;
  return line;
}

// The cells of one figure of one test: value, interval, verdicts, tier.
void add_figure_cells(const Figure& f, const std::vector<const Measured*>& group, const ScorecardScenario& sc,
                      const json& env, const std::string& now_utc, json* cells) {
  const Measured* base = nullptr;
  for (const auto* s : group)
    if (s->product == "baseline") base = s;
  std::vector<const Measured*> measured;
  std::vector<RankedValue> ranked;
  for (const auto* s : group) {
    auto it = s->stats.find(f.key);
    if (it == s->stats.end() || it->second.n == 0 || (f.headline && it->second.median <= 0)) continue;
    measured.push_back(s);
    ranked.push_back({it->second.median, it->second.ci_low, it->second.ci_high});
  }
  // The leader is a tunnel's: the baseline is the ceiling they are measured against.
  std::vector<RankedValue> tunnels;
  std::vector<size_t> tunnel_at;
  for (size_t i = 0; i < measured.size(); ++i)
    if (measured[i]->product != "baseline") tunnels.push_back(ranked[i]), tunnel_at.push_back(i);
  // The headline's tiers read the interval the scorecard prints for it: the round-paired
  // ratio, which the baseline's own noise does not widen (when every tunnel has one).
  if (f.headline &&
      std::all_of(tunnel_at.begin(), tunnel_at.end(), [&](size_t i) { return measured[i]->ratio.n >= 2; }))
    for (size_t k = 0; k < tunnels.size(); ++k) {
      const RatioInterval& r = measured[tunnel_at[k]]->ratio;
      tunnels[k] = {r.ratio, r.low, r.high};
    }
  const std::vector<int> tiers = tiers_of(tunnels, f.higher_is_better);
  for (size_t i = 0; i < measured.size(); ++i) {
    const Measured& s = *measured[i];
    const SampleStats& st = s.stats.at(f.key);
    json c = {{"scenario", sc.name},
              {"test", s.test},
              {"product", s.product},
              {"metric", f.key},
              {"title", f.title},
              {"headline", f.headline},
              {"value", st.median},
              {"interval", {st.ci_low, st.ci_high}},
              {"coverage", st.coverage},
              {"n", st.n},
              {"higher_is_better", f.higher_is_better},
              {"run", sc.run}};
    c["mde"] = st.median > 0 ? std::max(st.ci_high / st.median - 1, 1 - st.ci_low / st.median) : 0.0;
    if (f.headline && s.ratio.n >= 2 && s.product != "baseline") {
      c["ratio_to_baseline"] = {{"value", s.ratio.ratio}, {"interval", {s.ratio.low, s.ratio.high}}, {"n", s.ratio.n}};
      c["mde"] = s.ratio.half_width;
    }
    if (f.headline) c["samples"] = s.headline_samples;
    c["verdict_vs_baseline"] = verdict_vs_baseline(f, s, base);
    const auto at = std::find(tunnel_at.begin(), tunnel_at.end(), i);
    if (at != tunnel_at.end()) {
      const int tier = tiers[static_cast<size_t>(at - tunnel_at.begin())];
      c["tier"] = tier;
      c["verdict_vs_leader"] =
          tier == 1 ? (tunnels.size() > 1 ? "leader or tied with it" : "leader") : "behind the leader";
    }
    c["provenance"] = provenance_of(env, s.product, now_utc);
    cells->push_back(std::move(c));
  }
}

// A product x test without one valid row: a cell that says why, never a missing bar.
json failure_cell(const ScorecardScenario& sc, const Measured& s, const std::vector<SampleRow>& rows) {
  std::string reason = "no valid sample";
  for (const auto& r : rows)
    if (r.product == s.product && r.test == s.test && !r.reason.empty() && !counts_as_result(r)) {
      reason = r.reason;
      break;
    }
  const Figure& f = s.figures->front();
  return {{"scenario", sc.name},
          {"test", s.test},
          {"product", s.product},
          {"metric", f.key},
          {"title", f.title},
          {"headline", true},
          {"value", nullptr},
          {"interval", nullptr},
          {"run", sc.run},
          {"failure", reason},
          {"not_run", s.rows > 0 && s.not_run == s.rows}};
}

json scenario_json(const ScorecardScenario& sc, const json& env) {
  json j = {{"name", sc.name},   {"topology", sc.topology}, {"state", sc.state},    {"run", sc.run},
            {"error", sc.error}, {"tests", sc.tests},       {"feature", sc.feature}};
  if (env.contains("sampling") && env["sampling"].is_object()) {
    const json& s = env["sampling"];
    j["sampling"] = {{"stopped", s.value("stopped", "")},
                     {"precision", s.value("precision", 0.0)},
                     {"widest_half_width", s.contains("widest_half_width") ? s["widest_half_width"] : json(nullptr)}};
    j["reached_precision"] = s.value("stopped", "").rfind("target met", 0) == 0;
  }
  return j;
}

}  // namespace

json features_json(const std::vector<ProductFeatures>& products) {
  json out = json::object();
  for (const auto& p : products)
    out[p.name] = {{"cipher", p.cipher},   {"encrypted", p.encrypted}, {"shapes", p.shapes},
                   {"max_mtu", p.max_mtu}, {"overhead", p.overhead},   {"origin", p.origin}};
  return out;
}

std::vector<int> tiers_of(const std::vector<RankedValue>& values, bool higher_is_better) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return better(values[a].value, values[b].value, higher_is_better); });
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
  json out = {{"schema", kScorecardSchema},
              {"suite", suite_name},
              {"file", suite_file},
              {"generated", now_utc},
              {"stale_after_days", kStaleAfterDays},
              {"scenarios", json::array()},
              {"cells", json::array()}};
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
    const auto measured = measured_of(rows);
    std::vector<std::string> tests;
    std::map<std::string, std::vector<const Measured*>> by_test;
    for (const auto& m : measured) {
      if (!m.any()) {
        out["cells"].push_back(failure_cell(sc, m, rows));
        continue;
      }
      if (!by_test.count(m.test)) tests.push_back(m.test);
      by_test[m.test].push_back(&m);
    }
    for (const auto& t : tests)
      for (const auto& f : *by_test[t].front()->figures)
        add_figure_cells(f, by_test[t], sc, env, now_utc, &out["cells"]);
    out["scenarios"].back()["reproduce"] = reproduce_line(sc, rows);
    // Per product, the commands that ran, to check a figure by hand.
    json recipes = json::object();
    if (!sc.run.empty())
      for (const auto& m : measured)
        if (!recipes.contains(m.product))
          if (std::string r = hand_recipe(out_dir + "/" + sc.run, sc.topology, m.product, rows); !r.empty())
            recipes[m.product] = r;
    out["scenarios"].back()["recipes"] = recipes;
  }
  return out;
}

}  // namespace vpnlab
