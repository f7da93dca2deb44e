#include "lab/results/conclusion.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "lab/base/stats.h"
#include "lab/model/test_kinds.h"
#include "lab/results/paired.h"
#include "lab/results/product_compare.h"

namespace vpnlab {

namespace {

// The tests a leader is named for: bulk and rr/crr (a latency probe's rate is fixed).
std::vector<std::string> ranked_tests(const std::vector<SampleRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if ((r.kind.empty() || test_kind(r.kind).in_conclusion) && std::find(out.begin(), out.end(), r.test) == out.end())
      out.push_back(r.test);
  return out;
}

// Tunnels of `test` by the median of `metric` over their valid rows, best first.
std::vector<std::string> ranking(const std::vector<SampleRow>& rows, const std::string& test, const Metric& metric) {
  std::vector<std::string> order = tunnel_products(rows);
  std::map<std::string, double> median;
  for (const auto& p : order) {
    std::vector<double> v;
    for (const auto& r : rows)
      if (r.product == p && r.test == test && counts_as_result(r) && metric.value(r) > 0) v.push_back(metric.value(r));
    if (!v.empty()) median[p] = describe(v).median;
  }
  std::erase_if(order, [&](const std::string& p) { return !median.count(p); });
  std::stable_sort(order.begin(), order.end(), [&](const std::string& x, const std::string& y) {
    return metric.higher_is_better ? median[x] > median[y] : median[x] < median[y];
  });
  return order;
}

// One family: per test, the leader of `metric` over its runner-up. A pair whose paired
// ratio says the runner-up is better after all (medians and the round-paired mean can
// disagree when they are close) is turned round, so the leader is the one the interval is about.
void add_leaders(const std::vector<SampleRow>& rows, const Metric& metric, const char* kind,
                 std::vector<TestConclusion>* out) {
  std::vector<PairInTest> items;
  std::vector<size_t> owner;
  for (size_t i = 0; i < out->size(); ++i) {
    auto order = ranking(rows, (*out)[i].test, metric);
    // A lone tunnel is said once, under "fastest".
    if (order.empty() || (order.size() == 1 && !(*out)[i].leaders.empty())) continue;
    Leader l{kind, order[0], order.size() > 1 ? order[1] : "", (*out)[i].unit == "tx/s", {}};
    (*out)[i].leaders.push_back(l);
    if (order.size() > 1) {
      items.push_back({order[1], order[0], (*out)[i].test});
      owner.push_back(i);
    }
  }
  auto judged = compare_in_family(rows, items, metric);
  bool turned = false;
  for (size_t k = 0; k < judged.size(); ++k)
    if (judged[k].ratio > 0 && (judged[k].ratio < 1) == metric.higher_is_better && judged[k].ratio != 1) {
      std::swap(items[k].a, items[k].b);
      turned = true;
    }
  if (turned) judged = compare_in_family(rows, items, metric);
  for (size_t k = 0; k < judged.size(); ++k) {
    Leader& l = (*out)[owner[k]].leaders.back();
    l.product = items[k].b;
    l.runner_up = items[k].a;
    l.vs_runner_up = judged[k];
  }
}

}  // namespace

std::vector<TestConclusion> conclude(const std::vector<SampleRow>& rows) {
  std::vector<TestConclusion> out;
  for (const auto& t : ranked_tests(rows)) {
    const bool transactions =
        std::any_of(rows.begin(), rows.end(), [&](const SampleRow& r) { return r.test == t && r.is_transactions(); });
    out.push_back({t, transactions ? "tx/s" : "Gbit/s", {}});
  }
  add_leaders(rows, throughput_metric(), "fastest", &out);
  add_leaders(rows, cost_metrics()[0], "cheapest per Gbit", &out);
  std::erase_if(out, [](const TestConclusion& c) { return c.leaders.empty(); });
  return out;
}

std::string leader_sentence(const Leader& l) {
  if (l.runner_up.empty()) return l.product + " (the only tunnel with valid samples)";
  const Comparison& c = l.vs_runner_up;
  if (c.ratio <= 0) return l.product + " by its median; against " + l.runner_up + " " + c.verdict;
  // "1.278x wireguard-go (1.148-1.424)": the same ratio and interval as 'vpnlab compare'.
  std::string ratio;
  const std::string of = c.higher_is_better ? "" : "'s CPU" + std::string(l.per_transaction ? " per tx" : "-s/Gbit");
  ratio = fmt::format("{:.3f}x {}{} ({:.3f}-{:.3f})", c.ratio, l.runner_up, of, c.ci_low, c.ci_high);
  std::string s = l.product + ", " + ratio + ": ";
  if (c.verdict != "no significant difference") return s + "significant";
  return s + "not significant, the two may be equal" + rounds_to_settle(c);
}

std::string rounds_to_settle(const Comparison& c) {
  // The smallest change this comparison finds 80 % of the time shrinks as 1/sqrt(n) at the
  // same spread: the rounds at which it reaches the difference seen.
  const size_t n = std::min(c.n_a, c.n_b);
  const double seen = std::abs(std::log(c.ratio));
  if (c.detectable <= 0 || n == 0 || !(c.ratio > 0)) return "";
  if (seen < 1e-4) return " (a ratio this close to 1: no number of rounds would tell it from 1)";
  const double rounds = std::ceil(static_cast<double>(n) * std::pow(std::log1p(c.detectable) / seen, 2));
  std::string buf;
  if (rounds > 1000)
    buf = fmt::format(" ({:.3f}x needs more than 1000 rounds to be told from 1 at this spread)", c.ratio);
  else
    buf = fmt::format(" (about {:.0f} rounds would tell {:.3f}x from 1, 80 % of the time at this spread)",
                      std::max(rounds, static_cast<double>(n) + 1), c.ratio);
  return buf;
}

std::string answer_sentence(const std::vector<TestConclusion>& cs, const std::vector<SampleRow>& rows,
                            const std::vector<ProductTestSummary>& summaries) {
  for (const auto& c : cs)
    for (const auto& l : c.leaders) {
      if (l.kind != "fastest") continue;
      std::string out = "Answer (" + c.test + "): the fastest tunnel is " + l.product;
      std::vector<double> values;  // its median rate: Gbit/s, or transactions per second
      for (const auto& r : rows)
        if (r.product == l.product && r.test == c.test && counts_as_result(r))
          values.push_back(c.unit == "tx/s" ? r.tps : r.gbps);
      if (!values.empty()) {
        const double median = describe(values).median;
        out += fmt::format(" at {:.{}f} {}", median, median >= 100 ? 0 : 3, c.unit);
      }
      auto s = std::find_if(summaries.begin(), summaries.end(),
                            [&](const ProductTestSummary& x) { return x.product == l.product && x.test == c.test; });
      if (s != summaries.end() && s->baseline_ratio.n > 0)
        out += ", " + ratio_interval_text(s->baseline_ratio) + " of the baseline";
      const std::string rest = leader_sentence(l);  // "nebula, 1.027x strongswan-libipsec (...): ..."
      const size_t comma = rest.find(", ");
      return out +
             (l.runner_up.empty()          ? "; the only tunnel with valid samples"
              : comma == std::string::npos ? ""
                                           : "; " + rest.substr(comma + 2)) +
             ".";
    }
  return "";
}

std::string conclusion_text(const std::vector<TestConclusion>& cs) {
  if (cs.empty()) return "";
  size_t width = 4;
  for (const auto& c : cs) width = std::max(width, c.test.size());
  std::string o = "conclusion (tunnels only; the leader over the runner-up in the same rounds):\n";
  std::vector<std::pair<std::string, size_t>> families;  // kind -> its family, in order
  for (const auto& c : cs)
    for (const auto& l : c.leaders) {
      const std::string kind =
          l.kind == "cheapest per Gbit" && c.unit == "tx/s" ? std::string("cheapest per tx:") : l.kind + ":";
      o += fmt::format("  {:<{}} {:<18} ", &l == &c.leaders.front() ? c.test : std::string(), width, kind) +
           leader_sentence(l) + "\n";
      if (l.vs_runner_up.ratio > 0 &&
          std::none_of(families.begin(), families.end(), [&](auto& f) { return f.first == l.kind; }))
        families.push_back({l.kind, l.vs_runner_up.family});
    }
  std::string note;
  for (const auto& [kind, n] : families)
    note += (note.empty() ? "" : "; ") + std::string("'") + kind + "' " + std::to_string(n) +
            (n == 1 ? " interval at " : " intervals, each at ") + level_text(family_level(n));
  if (!note.empty())
    o += "each kind of line covers together with 95 % (" + note + "); significant: the interval excludes 1\n";
  return o;
}

}  // namespace vpnlab
