#include "lab/results/summary.h"

#include "lab/base/text_table.h"
#include "lab/record/metrics.h"
#include "lab/results/hop_cost.h"
#include "lab/results/load_latency_table.h"
#include "lab/results/paired.h"
#include "lab/results/sweep_effects.h"
#include "lab/results/sweep_table.h"
#include "lab/results/transactions_table.h"
#include "lab/results/udp_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace vpnlab {

const SampleStats& ProductTestSummary::metric(const std::string& key) const {
  static const SampleStats none;
  auto it = metrics.find(key);
  return it == metrics.end() ? none : it->second;
}

std::vector<ProductTestRows> group_by_product_test(const std::vector<SampleRow>& rows, bool (*keep)(const SampleRow&)) {
  std::vector<ProductTestRows> out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const auto& r : rows) {
    if (!keep(r)) continue;
    auto [at, added] = index.try_emplace({r.product, r.test}, out.size());
    if (added) out.push_back({r.product, r.test, {}});
    out[at->second].rows.push_back(&r);
  }
  return out;
}

SampleStats describe_field(const std::vector<const SampleRow*>& rows, double SampleRow::*field) {
  std::vector<double> v;
  for (const SampleRow* r : rows)
    if (counts_as_result(*r)) v.push_back(r->*field);
  return describe(v);
}

std::vector<ProductTestSummary> summarize(const std::vector<SampleRow>& rows) {
  std::vector<ProductTestSummary> out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  struct Series {
    std::map<std::string, std::vector<double>> values;  // metric key -> the valid rows' figures
    std::map<int, double> by_sample;                    // sample number -> Gbit/s, for pairing by round
  };
  std::vector<Series> series;
  for (const auto& r : rows) {
    if (r.is_transactions()) continue;  // lab/results/transactions_table.h
    auto key = std::make_pair(r.product, r.test);
    if (!index.count(key)) {
      index[key] = out.size();
      out.push_back(ProductTestSummary{r.product, r.test});
      series.emplace_back();
    }
    size_t i = index[key];
    out[i].rows++;
    if (r.not_run()) out[i].not_run++;
    // Only checked rows count: a sample that did not provably cross the tunnel is no result.
    if (!counts_as_result(r)) continue;
    Series& s = series[i];
    for (const auto& m : metric_columns())
      if (m.measured(r)) s.values[m.key].push_back(m.value(r));
    s.by_sample[r.sample] = r.gbps;
    out[i].threads = std::max(out[i].threads, r.daemon_threads);
    if (r.outside_load >= 1) out[i].loaded_rows++;
    if (r.generator_cpu_pct >= kGeneratorBoundPct) out[i].generator_bound++;
    if (is_disturbed(r)) out[i].disturbed++;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    for (const auto& m : metric_columns()) out[i].metrics[m.key] = describe(series[i].values[m.key]);
    out[i].gbps = out[i].metrics["gbps"];
  }
  for (size_t i = 0; i < out.size(); ++i) {
    ProductTestSummary& s = out[i];
    auto base = index.find({"baseline", s.test});
    if (base == index.end() || s.gbps.n == 0) continue;
    const ProductTestSummary& b = out[base->second];
    if (b.gbps.n > 0 && b.gbps.median > 0) s.ratio_to_baseline = s.gbps.median / b.gbps.median;
    if (b.metric("retransmits").n > 0) s.baseline_retransmits = b.metric("retransmits").median;
    if (const SampleStats& bc = b.metric("cpu_s_per_gbit"), &sc = s.metric("cpu_s_per_gbit"); bc.n > 0 && sc.n > 0)
      s.cpu_over_baseline = sc.median - bc.median;
    std::vector<double> ratios;
    for (const auto& [sample, gbps] : series[i].by_sample) {
      auto other = series[base->second].by_sample.find(sample);
      if (other != series[base->second].by_sample.end() && other->second > 0) ratios.push_back(gbps / other->second);
    }
    s.paired_ratio = describe(ratios);
    s.baseline_ratio = ratio_interval(ratios, kRatioLevel);
  }
  return out;
}

std::string compact_interval(const SampleStats& s, const char* format, double scale) {
  if (s.n == 0 || s.median <= 0) return "-";
  const double wider = std::max(s.ci_high / s.median - 1, 1 - s.ci_low / s.median);
  return fmt::format(fmt::runtime(format), s.median / scale) +
         fmt::format("±{:.0f}%{}", 100 * wider, s.coverage < 0.95 ? "*" : "");
}

std::vector<ProductTestSummary> in_reading_order(std::vector<ProductTestSummary> summaries, bool file_order) {
  if (file_order) return summaries;
  std::vector<std::string> tests;
  for (const auto& s : summaries)
    if (std::find(tests.begin(), tests.end(), s.test) == tests.end()) tests.push_back(s.test);
  auto test_index = [&](const std::string& t) { return std::find(tests.begin(), tests.end(), t) - tests.begin(); };
  std::stable_sort(summaries.begin(), summaries.end(), [&](const ProductTestSummary& x, const ProductTestSummary& y) {
    if (x.test != y.test) return test_index(x.test) < test_index(y.test);
    const double vx = x.gbps.n > 0 ? x.gbps.median : -1, vy = y.gbps.n > 0 ? y.gbps.median : -1;
    return vx > vy;
  });
  return summaries;
}

namespace {

// The summary's columns: the throughput ones, then every tabled metric (metrics.h) with
// "+over bl" after CPU-s/Gbit, then retransmits, threads and the valid count.
struct SummaryLayout {
  std::vector<int> widths{-20, -14, 8, 19, 7, 21};
  std::vector<std::string> heads{"product", "test", "Gbit/s", "95% int. (median)", "CV", "x baseline (95% int.)"};
  const std::vector<const MetricColumn*>& metrics = tabled_metrics();
  SummaryLayout() {
    for (const MetricColumn* m : metrics) {
      widths.push_back(m->table_width);
      heads.push_back(m->table_head);
      if (m->key == "cpu_s_per_gbit") widths.push_back(8), heads.push_back("+over bl");
    }
    for (auto [w, h] : {std::pair{7, "retr"}, {4, "thr"}, {6, "valid"}}) widths.push_back(w), heads.push_back(h);
  }
};

}  // namespace

std::string summary_table(const std::vector<SampleRow>& rows, bool file_order) {
  std::ostringstream o;
  std::string line;
  const SummaryLayout layout;
  const TextTable table(layout.widths);
  o << table.line(layout.heads);
  double lowest_coverage = 1;
  size_t lowest_n = 0;
  const std::vector<ProductTestSummary> summaries = in_reading_order(summarize(rows), file_order);
  if (summaries.empty())  // rr/crr tests only
    if (std::string t = transactions_table(rows); !t.empty()) return t.substr(1);
  for (const auto& s : summaries) {
    std::string valid = std::to_string(s.gbps.n) + "/" + std::to_string(s.rows);
    if (s.gbps.n == 0) {
      std::vector<std::string> cells(layout.heads.size(), "-");
      cells[0] = s.product, cells[1] = s.test, cells.back() = valid;
      o << table.line(cells);
      continue;
    }
    std::string median;
    std::string interval;
    std::string cv;
    std::string ratio = "-";
    std::string over = "-";
    std::string retr = "-";
    std::string threads = "-";
    median = fmt::format("{:.3f}", s.gbps.median);
    interval = fmt::format("{:.3f}-{:.3f}{}", s.gbps.ci_low, s.gbps.ci_high, s.gbps.coverage < 0.95 ? "*" : "");
    if (s.gbps.coverage < lowest_coverage) {
      lowest_coverage = s.gbps.coverage;
      lowest_n = s.gbps.n;
    }
    cv = fmt::format("{:.1f}%{}", 100 * s.gbps.cv, s.gbps.cv > kHighCv ? "!" : "");
    if (s.product == "baseline")
      ratio = "1";
    else
      ratio = ratio_interval_text(s.baseline_ratio);
    if (s.product != "baseline" && s.cpu_over_baseline != 0) over = fmt::format("{:+.2f}", s.cpu_over_baseline);
    if (s.metric("retransmits").n > 0) retr = fmt::format("{:.0f}", s.metric("retransmits").median);
    if (s.threads > 0) threads = fmt::format("{}", s.threads);
    std::vector<std::string> cells{s.product, s.test, median, interval, cv, ratio};
    for (const MetricColumn* m : layout.metrics) {
      cells.push_back(compact_interval(s.metric(m->key), m->format.c_str(), m->scale));
      if (m->key == "cpu_s_per_gbit") cells.push_back(over);
    }
    cells.push_back(retr);
    cells.push_back(threads);
    cells.push_back(valid);
    o << table.line(cells);
  }
  if (lowest_coverage < 0.95) {
    line = fmt::format(
        "* fewer than 6 samples: the interval is [min, max] and covers the median with only {:.1f} % ({} samples)\n",
        100 * lowest_coverage, lowest_n);
    o << line;
  }
  o << "x baseline: geometric mean of per-round ratios (sample i of the product over sample i of 'baseline': the "
       "underlay link with its "
       "offloads, offloads.json; virtio-net in guests) with its 95 % t interval (±N %: wider than ±50 %): compare's "
       "estimator, and "
       "adaptive sampling's, whose looks take it at the wider level the sampling line gives; +over bl: CPU-s/Gbit "
       "above the baseline's\n"
       "±: the wider side of the median's 95 % interval; retr: TCP retransmits per sample (median); kpps: packets the "
       "receiving "
       "side's interface counted (the baseline's are GRO-merged, up to 64 KB each: not comparable with a tunnel's); "
       "wire kpps: frames "
       "the receiving side's underlay carried, merged segments counted as the full-size frames they stand for: "
       "comparable across products and baseline\n";
  o << load_latency_table(rows) << hop_cost_table(rows) << udp_table(rows) << transactions_table(rows)
    << sweep_tables(rows) << sweep_effects_text(sweep_effects(rows));
  for (const auto& w : summary_warnings(summaries)) o << "! " << w << "\n";
  return o.str();
}

std::vector<std::string> summary_warnings(const std::vector<ProductTestSummary>& summaries) {
  std::vector<std::string> warnings;
  std::string cv;
  for (const auto& s : summaries) {
    std::string who = s.product + " / " + s.test + ": ";
    if (s.not_run > 0)
      warnings.push_back(who + std::to_string(s.not_run) + " of " + std::to_string(s.rows) +
                         " sample(s) not run: the product cannot run this test (see the reason column of results.csv)");
    if (s.gbps.n + static_cast<size_t>(s.not_run) < static_cast<size_t>(s.rows))
      warnings.push_back(who + std::to_string(s.rows - s.not_run - static_cast<int>(s.gbps.n)) + " of " +
                         std::to_string(s.rows) + " sample(s) not valid (see the reason column of results.csv)");
    cv = fmt::format("{:.1f}%", 100 * s.gbps.cv);
    if (s.gbps.n > 1 && s.gbps.cv > kHighCv)
      warnings.push_back(who + "CV " + std::string(cv) +
                         " is high: the median is less certain than on a quiet machine");
    if (s.generator_bound > 0)
      warnings.push_back(who + std::to_string(s.generator_bound) +
                         " sample(s) generator-bound (an iperf3 process used >= 90 % of a CPU): " +
                         "this measures iperf3 as much as the product");
    if (s.disturbed > 0)
      warnings.push_back(who + fmt::format("{} sample(s) disturbed: the hypervisor took more than {:.0f} % of the "
                                           "CPUs' time (their reason says how much); adaptive sampling leaves their "
                                           "rounds out",
                                           s.disturbed, 100 * kMaxStealShare));
    // One runnable task now and then is a kernel worker; most samples is a busy machine.
    if (s.loaded_rows * 2 > static_cast<int>(s.gbps.n))
      warnings.push_back(who + std::to_string(s.loaded_rows) +
                         " sample(s) started with tasks from outside the lab runnable: the machine was not idle");
  }
  return warnings;
}

nlohmann::json summary_json(const std::vector<SampleRow>& rows) {
  auto stats = [](const SampleStats& s) {
    return nlohmann::json{{"n", s.n},
                          {"median", s.median},
                          {"mean", s.mean},
                          {"stdev", s.stdev},
                          {"cv", s.cv},
                          {"min", s.min},
                          {"max", s.max},
                          {"ci95_low", s.ci_low},
                          {"ci95_high", s.ci_high},
                          {"ci_coverage", s.coverage}};
  };
  nlohmann::json j = {{"schema", kSummarySchema}, {"results", nlohmann::json::array()}};
  if (!rows.empty()) j["run_id"] = rows.front().run_id;
  for (const auto& s : summarize(rows)) {
    nlohmann::json r = {{"product", s.product}, {"test", s.test}, {"rows", s.rows}, {"valid_rows", s.gbps.n}};
    for (const auto& [key, st] : s.metrics) r[key] = stats(st);  // every figure of the metric table
    if (s.ratio_to_baseline > 0) r["ratio_to_baseline"] = s.ratio_to_baseline;
    if (s.paired_ratio.n > 0) r["paired_ratio_to_baseline"] = stats(s.paired_ratio);
    if (s.baseline_ratio.n > 0) r["ratio_to_baseline_interval"] = ratio_interval_json(s.baseline_ratio);
    if (s.cpu_over_baseline != 0) r["cpu_s_per_gbit_over_baseline"] = s.cpu_over_baseline;
    r["daemon_threads_max"] = s.threads;
    r["generator_bound_rows"] = s.generator_bound;
    r["rows_started_under_outside_load"] = s.loaded_rows;
    j["results"].push_back(r);
  }
  if (auto t = transactions_json(rows); !t.empty()) j["transactions"] = t;
  if (auto u = udp_json(rows); !u.empty()) j["udp"] = u;
  if (auto w = sweeps_json(rows); !w.empty()) j["sweeps"] = w;
  if (auto e = sweep_effects(rows); !e.empty()) j["effects"] = sweep_effects_json(e);
  if (auto h = hop_cost_json(rows); !h.empty()) j["hop_cost"] = h;
  return j;
}

Completeness completeness(const std::vector<SampleRow>& rows, const std::vector<std::string>& products,
                          const std::vector<std::string>& tests) {
  Completeness c;
  for (const auto& product : products)
    for (const auto& test : tests) {
      bool any_valid = false, any_run = false, any_not_run = false;
      for (const auto& r : rows) {
        if (r.product != product || r.test != test) continue;
        if (r.not_run()) {
          any_not_run = true;
          continue;
        }
        any_run = true;
        ++c.rows;
        if (r.valid)
          any_valid = true;
        else
          ++c.not_valid;
      }
      const std::string pair = product + " / " + test;
      if (any_not_run) c.not_run.push_back(pair);
      // A pair the product cannot run is no failure; one it ran, or that has no rows at all
      // (an interrupted run), must have a valid row.
      if (!any_valid && (any_run || !any_not_run)) c.without_valid.push_back(pair);
    }
  return c;
}

}  // namespace vpnlab
