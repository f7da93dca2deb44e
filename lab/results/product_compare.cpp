#include "lab/results/product_compare.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "lab/base/text_table.h"
#include "lab/results/paired.h"
#include "lab/results/power.h"

namespace vpnlab {

namespace {

std::vector<Metric> all_metrics() {
  std::vector<Metric> ms = {throughput_metric()};
  for (const auto& m : cost_metrics()) ms.push_back(m);
  return ms;
}

}  // namespace

// The baseline ("none") and a tunnel with its encryption off ("none (...)", encrypted = false).
bool is_reference_product(const SampleRow& r) { return r.cipher.rfind("none", 0) == 0; }

std::vector<std::string> tunnel_products(const std::vector<SampleRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (!is_reference_product(r) && std::find(out.begin(), out.end(), r.product) == out.end()) out.push_back(r.product);
  return out;
}

std::vector<std::string> shared_tests(const std::vector<SampleRow>& rows, const std::string& a, const std::string& b) {
  std::vector<std::string> tests;
  for (const auto& r : rows) {
    if (r.product != a || std::find(tests.begin(), tests.end(), r.test) != tests.end()) continue;
    if (std::any_of(rows.begin(), rows.end(), [&](const SampleRow& o) { return o.product == b && o.test == r.test; }))
      tests.push_back(r.test);
  }
  return tests;
}

std::vector<Comparison> compare_in_family(const std::vector<SampleRow>& rows, const std::vector<PairInTest>& items,
                                          const Metric& metric, double alpha) {
  // The round-paired values of every comparison first: the family's size sets every
  // interval's level.
  struct Pending {
    size_t index;
    std::vector<double> a, b;
  };
  std::vector<Comparison> out;
  std::vector<Pending> tested;
  for (const auto& item : items) {
    const ByRound va = values_by_round(rows, item.a, item.test, metric.value);
    const ByRound vb = values_by_round(rows, item.b, item.test_b.empty() ? item.test : item.test_b, metric.value);
    if (!metric.higher_is_better && (va.empty() || vb.empty()))
      continue;                              // one side has no such cost (the baseline's daemon)
    if (va.empty() && vb.empty()) continue;  // the test has no such figure (fairness of a one-to-one test)
    Pending p{out.size(), {}, {}};
    pair_rounds(va, vb, &p.a, &p.b);
    Comparison c;
    c.product = item.b;
    c.reference = item.a;
    c.test = item.test;
    c.metric = metric.key;
    c.higher_is_better = metric.higher_is_better;
    c.n_a = c.n_b = p.a.size();
    if (p.a.size() < 2)
      c.verdict = "not comparable: fewer than 2 rounds where both are valid";
    else
      tested.push_back(std::move(p));
    out.push_back(c);
  }
  for (const auto& p : tested) {
    Comparison& c = out[p.index];
    c.family = tested.size();
    c.level = c.coverage = family_level(c.family, alpha);  // a t interval covers what it is asked to
    PairedEstimate e = paired_ratio(p.a, p.b, c.level);
    c.ratio = e.ratio;
    c.ci_low = e.ci_low;
    c.ci_high = e.ci_high;
    c.p_value = e.p_value;
    if (e.n >= 2) c.detectable = paired_detectable_at(static_cast<int>(e.n), c.level, e.log_sd);
    judge_by_interval(&c, metric.better, metric.worse);
  }
  return out;
}

std::vector<Comparison> compare_products(const std::vector<SampleRow>& rows, const std::vector<ProductPair>& pairs,
                                         const std::string& test, double alpha) {
  std::vector<PairInTest> items;
  for (const auto& pair : pairs)
    for (const auto& t : shared_tests(rows, pair.a, pair.b))
      if (test.empty() || t == test) items.push_back({pair.a, pair.b, t});
  std::vector<Comparison> out;
  for (const Metric& metric : all_metrics()) {
    auto cs = compare_in_family(rows, items, metric, alpha);
    out.insert(out.end(), cs.begin(), cs.end());
  }
  return out;
}

namespace {

const Metric& metric_of(const std::string& key) {
  if (key == throughput_metric().key) return throughput_metric();
  for (const auto& m : cost_metrics())
    if (m.key == key) return m;
  return throughput_metric();
}

}  // namespace

std::string ratio_text(const Comparison& c, bool inverse) {
  if (c.ratio <= 0) return "-";
  std::string buf;
  if (inverse)
    buf = fmt::format("{:.3f} ({:.3f}-{:.3f})", 1 / c.ratio, 1 / c.ci_high, 1 / c.ci_low);
  else
    buf = fmt::format("{:.3f} ({:.3f}-{:.3f})", c.ratio, c.ci_low, c.ci_high);
  return buf;
}

const char* const detects_note =
    "detects: the smallest change (either way) this comparison finds 80 % of the time at its own noise and level; a "
    "smaller "
    "one can hide in \"no significant difference\"\n";

std::string product_comparison_text(const std::vector<Comparison>& cs, const std::string& a, const std::string& b) {
  std::ostringstream o;
  o << "B = " << b << ", A = " << a << ": each round's sample of B over the same round's sample of A\n";
  const TextTable table({-14, -16, 5, -24, -24, 8, 7, 0, 0});  // the empty column: two spaces before the verdict
  o << table.line({"test", "metric", "pairs", "B/A (interval)", "A/B (interval)", "p(adj)", "detects", "", "verdict"});
  std::vector<std::string> tests;
  for (const auto& c : cs)
    if (std::find(tests.begin(), tests.end(), c.test) == tests.end()) tests.push_back(c.test);
  for (const auto& t : tests)
    for (const auto& c : cs) {
      if (c.test != t) continue;
      const std::string title = metric_of(c.metric).title;
      if (c.ratio <= 0) {
        o << table.line({t, title, std::to_string(c.n_a), "-", "-", "-", "-", "", c.verdict});
      } else {
        std::string p = fmt::format("{:.4f}", c.p_adjusted);
        std::string verdict = c.verdict == "no significant difference" ? c.verdict : b + " " + verdict_text(c);
        o << table.line({t, title, std::to_string(c.n_a), ratio_text(c, false), ratio_text(c, true), p,
                         detectable_text(c), "", verdict});
      }
    }
  o << "B/A: geometric mean of the round-paired ratios with its Student t interval (as adaptive sampling). Costs: "
       "lower is better.\n"
    << detects_note << metric_families_note(cs);
  return o.str();
}

std::string metric_families_note(const std::vector<Comparison>& cs) {
  std::string levels;
  std::vector<std::string> seen;
  for (const auto& c : cs) {
    if (c.ratio <= 0 || std::find(seen.begin(), seen.end(), c.metric) != seen.end()) continue;
    seen.push_back(c.metric);
    levels += (levels.empty() ? "" : ", ") + metric_of(c.metric).title + ": " + std::to_string(c.family) + " at " +
              level_text(c.level);
  }
  if (levels.empty()) return "";
  return "each metric's comparisons are corrected together (Bonferroni: N of them, each interval at 1 - 5 %/N, so that "
         "all cover "
         "together with 95 %; here " +
         levels +
         "); a verdict is what its interval says (1 inside: no significant difference); "
         "p(adj) = N x p\n";
}

const std::vector<std::string>& vs_metric_titles() {
  // rr/crr rows carry their payload rate as Gbit/s: their ratios are of transaction rates
  // and of CPU per transaction.
  static const std::vector<std::string> t = {"Gbit/s or tx/s", "CPU-s/Gbit or per tx", "daemon RSS", "p99 latency"};
  return t;
}

namespace {

// Every other product against `ref`, in order of first appearance.
std::vector<ProductPair> vs_pairs(const std::vector<SampleRow>& rows, const std::string& ref, bool with_baseline) {
  std::vector<ProductPair> pairs;
  for (const auto& r : rows)
    if (r.product != ref && (with_baseline || !is_reference_product(r)) &&
        std::none_of(pairs.begin(), pairs.end(), [&](const ProductPair& p) { return p.b == r.product; }))
      pairs.push_back({ref, r.product});
  return pairs;
}

}  // namespace

std::vector<VsRow> vs_rows(const std::vector<SampleRow>& rows, const std::string& ref, bool with_baseline,
                           std::vector<Comparison>* comparisons) {
  const auto pairs = vs_pairs(rows, ref, with_baseline);
  auto cs = compare_products(rows, pairs);
  std::vector<VsRow> out;
  for (const auto& pair : pairs)
    for (const auto& t : shared_tests(rows, pair.a, pair.b)) {
      VsRow row{pair.b, t, {}, std::nullopt};
      for (const char* key : {"gbps", "cpu_s_per_gbit", "daemon_rss_kb", "latency_p99_ms"}) {
        auto c = std::find_if(cs.begin(), cs.end(), [&](const Comparison& x) {
          return x.product == pair.b && x.test == t && x.metric == key;
        });
        if (c == cs.end())
          row.cells.push_back("-");
        else if (c->ratio <= 0)
          row.cells.push_back("not comparable");
        else
          row.cells.push_back(ratio_text(*c, false) + " " +
                              (c->verdict == "no significant difference" ? "n.s." : c->verdict));
        if (c != cs.end() && c->ratio > 0 && c->metric == "gbps") row.gbps = *c;
      }
      out.push_back(row);
    }
  if (comparisons) *comparisons = std::move(cs);
  return out;
}

std::string vs_block(const std::vector<SampleRow>& rows, const std::string& ref) {
  std::ostringstream o;
  o << "vs " << ref << " (each product over " << ref << " in the same rounds; interval and the verdict it says):\n";
  const TextTable table({-20, -14, -32, -32, -32, -32});
  const auto& titles = vs_metric_titles();
  o << table.line({"product", "test", titles[0], titles[1], titles[2], titles[3]});
  std::vector<Comparison> cs;
  auto vs = vs_rows(rows, ref, /*with_baseline=*/true, &cs);
  for (const auto& r : vs) {
    o << table.line({r.product, r.test, r.cells[0], r.cells[1], r.cells[2], r.cells[3]});
  }
  if (vs.empty())
    o << "(no other product in this run)\n";
  else
    o << metric_families_note(cs) << "n.s.: no significant difference; 'vpnlab compare RUN " << ref
      << " PRODUCT' for both directions and p-values\n";
  return o.str();
}

}  // namespace vpnlab
