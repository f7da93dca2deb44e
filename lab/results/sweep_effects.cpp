#include "lab/results/sweep_effects.h"

#include <algorithm>
#include <cmath>

#include "lab/base/text_table.h"
#include "lab/results/product_compare.h"
#include "lab/results/sweep_table.h"

namespace vpnlab {

namespace {

using PointValues = std::vector<std::pair<std::string, std::string>>;

// "streams=8;underlay_mtu=1500" -> {{"streams", "8"}, {"underlay_mtu", "1500"}}.
PointValues parse_point(const std::string& point) {
  PointValues out;
  size_t start = 0;
  while (start <= point.size()) {
    size_t end = point.find(';', start);
    if (end == std::string::npos) end = point.size();
    const std::string part = point.substr(start, end - start);
    if (const size_t eq = part.find('='); eq != std::string::npos)
      out.emplace_back(part.substr(0, eq), part.substr(eq + 1));
    start = end + 1;
  }
  return out;
}

// The values of every axis but `axis`, as the table's "held" column writes them.
std::string held_text(const PointValues& point, size_t axis) {
  std::string out;
  for (size_t i = 0; i < point.size(); ++i)
    if (i != axis) out += (out.empty() ? "" : " ") + point[i].first + "=" + point[i].second;
  return out;
}

bool same_but(const PointValues& x, const PointValues& y, size_t axis) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (i != axis && x[i] != y[i]) return false;
  return true;
}

// Transactions per second, judged as Gbit/s is (higher is better): an rr sweep over
// message sizes changes its Gbit/s by the size itself.
const Metric& transactions_metric() {
  static const Metric m = [] {
    Metric t = throughput_metric();
    t.key = "tps";
    t.title = "tx/s";
    t.value = [](const SampleRow& r) { return r.tps; };
    t.measured = nullptr;
    return t;
  }();
  return m;
}

// One sweep's effects, unjudged: the effect and the pair of tests it compares.
void effects_of(const SweepCurves& c, std::vector<SweepEffect>* effects, std::vector<PairInTest>* items) {
  std::vector<PointValues> points;
  for (const auto& p : c.points) points.push_back(parse_point(p));
  if (points.empty()) return;
  for (size_t axis = 0; axis < points.front().size(); ++axis) {
    const std::string& first = points.front()[axis].second;
    for (size_t q = 0; q < points.size(); ++q) {
      if (points[q].size() != points.front().size() || points[q][axis].second == first) continue;
      auto ref = std::find_if(points.begin(), points.end(), [&](const PointValues& o) {
        return o[axis].second == first && same_but(o, points[q], axis);
      });
      if (ref == points.end()) continue;  // zipped axes: no point holds the others at the first value
      const std::string& ref_test = c.point_tests[static_cast<size_t>(ref - points.begin())];
      for (const auto& product : c.products) {
        SweepEffect e;
        e.sweep = c.test;
        e.axis = points[q][axis].first;
        e.from = first;
        e.to = points[q][axis].second;
        e.held = held_text(points[q], axis);
        e.unit = c.metric == "tps" ? "tx/s" : c.unit;
        e.from_test = ref_test;
        e.to_test = c.point_tests[q];
        effects->push_back(std::move(e));
        items->push_back({product, product, ref_test, c.point_tests[q]});
      }
    }
  }
}

}  // namespace

std::vector<SweepEffect> sweep_effects(const std::vector<SampleRow>& rows, double alpha) {
  // One family per figure across every sweep of the run.
  std::vector<SweepEffect> out;
  for (const Metric* metric : {&throughput_metric(), &transactions_metric()}) {
    std::vector<SweepEffect> effects;
    std::vector<PairInTest> items;
    for (const auto& c : summarize_sweeps(rows))
      if ((c.metric == "tps") == (metric == &transactions_metric())) effects_of(c, &effects, &items);
    const std::vector<Comparison> judged = compare_in_family(rows, items, *metric, alpha);
    for (size_t i = 0; i < effects.size() && i < judged.size(); ++i) {
      effects[i].c = judged[i];
      out.push_back(std::move(effects[i]));
    }
  }
  // The run's order: sweep by sweep, as the curves are.
  std::vector<std::string> order;
  for (const auto& c : summarize_sweeps(rows)) order.push_back(c.test);
  std::stable_sort(out.begin(), out.end(), [&](const SweepEffect& x, const SweepEffect& y) {
    return std::find(order.begin(), order.end(), x.sweep) < std::find(order.begin(), order.end(), y.sweep);
  });
  return out;
}

std::string sweep_effects_note(const std::vector<SweepEffect>& effects) {
  std::string note;
  for (const char* unit : {"Gbit/s", "tx/s"}) {
    auto it = std::find_if(effects.begin(), effects.end(),
                           [&](const SweepEffect& e) { return e.unit == unit && e.c.ratio > 0; });
    if (it == effects.end()) continue;
    note += std::string(note.empty() ? "" : "; ") + unit + ": " + std::to_string(it->c.family) +
            (it->c.family == 1 ? " interval at " : " intervals, each at ") + level_text(it->c.level);
  }
  if (note.empty()) return "no effect had 2 rounds where both points were valid";
  return "each figure's intervals cover together with 95 % (" + note +
         "); a verdict is what its interval says (1 inside: no significant difference); "
         "detects: the smallest change either way each effect finds 80 % of the time at its own noise";
}

std::string sweep_effects_text(const std::vector<SweepEffect>& effects) {
  if (effects.empty()) return "";
  std::vector<std::vector<std::string>> lines = {
      {"sweep", "axis", "change", "held", "product", "figure", "ratio (interval)", "detects", "verdict"}};
  for (const auto& e : effects)
    lines.push_back({e.sweep, e.axis, e.from + " -> " + e.to, e.held.empty() ? "-" : e.held, e.c.product, e.unit,
                     ratio_text(e.c), detectable_text(e.c), e.c.verdict});
  std::vector<int> widths(lines.front().size(), 0);
  for (const auto& l : lines)
    for (size_t i = 0; i + 1 < l.size(); ++i) widths[i] = std::min(-static_cast<int>(l[i].size()) - 1, widths[i]);
  widths.back() = 0;
  const TextTable table(widths);
  std::string o =
      "\neffects of the swept axes: each point over the axis's first value, the other axes held, round-paired\n";
  for (const auto& l : lines) o += table.line(l);
  o += sweep_effects_note(effects) + "\n";
  return o;
}

nlohmann::json sweep_effects_json(const std::vector<SweepEffect>& effects) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : effects) {
    nlohmann::json j = {{"sweep", e.sweep}, {"axis", e.axis},         {"from", e.from},       {"to", e.to},
                        {"held", e.held},   {"product", e.c.product}, {"figure", e.c.metric}, {"unit", e.unit},
                        {"pairs", e.c.n_a}, {"verdict", e.c.verdict}};
    if (e.c.ratio > 0) {
      j["ratio"] = e.c.ratio;
      j["ci_low"] = e.c.ci_low;
      j["ci_high"] = e.c.ci_high;
      j["level"] = e.c.level;
      j["family"] = e.c.family;
      j["detectable"] = std::isfinite(e.c.detectable) && e.c.detectable > 0 ? nlohmann::json(e.c.detectable)
                                                                            : nlohmann::json(nullptr);
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace vpnlab
