#include "lab/results/report_kinds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lab/model/test_kinds.h"
#include "lab/results/latency_cdf.h"
#include "lab/results/paired.h"
#include "lab/results/sweep_effects.h"
#include "lab/results/sweep_table.h"
#include "lab/results/transactions_table.h"
#include "lab/results/udp_table.h"

namespace vpnlab {

void add_line_chart(KindSection* k, const std::string& name, const std::string& title, const std::string& x_label,
                    const std::string& y_label, const std::map<std::string, Series>& series) {
  std::vector<Series> lines;
  for (const auto& [label, line] : series)
    if (line.points.size() > 1) lines.push_back(line);
  if (!lines.empty()) k->plots.push_back({name, svg_line_chart(title, x_label, y_label, lines)});
}

int color_of(const std::map<std::string, int>& color, const std::string& product) {
  auto c = color.find(product);
  return c == color.end() ? -1 : c->second;
}

namespace {

// "udp-64" and "udp-mtu" are one sweep, "udp": the name before a size suffix.
std::string sweep_of(const std::string& test) {
  size_t dash = test.rfind('-');
  if (dash == std::string::npos) return test;
  std::string suffix = test.substr(dash + 1);
  bool size = suffix == "mtu" || (!suffix.empty() && std::all_of(suffix.begin(), suffix.end(), ::isdigit));
  return size ? test.substr(0, dash) : test;
}

}  // namespace

std::string number_text(const char* format, double v) { return fmt::format(fmt::runtime(format), v); }

double nines(double percentile) { return -std::log10(1 - percentile / 100); }

std::vector<KindSection> transaction_sections(const std::vector<SampleRow>& rows, const std::string& run_dir,
                                              const std::map<std::string, int>& color) {
  const auto summaries = summarize_transactions(rows);
  std::vector<std::string> tests;
  for (const auto& s : summaries)
    if (std::find(tests.begin(), tests.end(), s.test) == tests.end()) tests.push_back(s.test);
  std::vector<KindSection> out;
  for (const auto& test : tests) {
    KindSection k;
    std::string kind;
    std::vector<Bar> rates;
    std::vector<Series> percentiles, cdfs;
    k.table.push_back({"product", "per s", "95 % interval", "x baseline (95 % int.)", "p50 ms", "p90 ms", "p99 ms",
                       "p99.9 ms", "CPU-µs/tx", "valid"});
    for (const auto& s : summaries) {
      if (s.test != test) continue;
      kind = s.kind;
      const std::string valid = std::to_string(s.tps.n) + "/" + std::to_string(s.rows);
      if (s.tps.n == 0) {
        k.table.push_back({s.product, "-", "-", "-", "-", "-", "-", "-", "-", valid});
        continue;
      }
      const int c = color_of(color, s.product);
      std::string ratio = s.product == "baseline" || !test_kind(kind).rate_vs_baseline ? "-" : "";
      if (ratio.empty()) ratio = ratio_interval_text(s.baseline_ratio);
      k.table.push_back({s.product, number_text("{:.1f}", s.tps.median),
                         number_text("{:.1f}", s.tps.ci_low) + "-" + number_text("{:.1f}", s.tps.ci_high) +
                             (s.tps.coverage < 0.95 ? "*" : ""),
                         ratio, number_text("{:.3f}", s.p50_ms.median), number_text("{:.3f}", s.p90_ms.median),
                         number_text("{:.3f}", s.p99_ms.median), number_text("{:.3f}", s.p999_ms.median),
                         s.cpu_us_per_tx.n ? number_text("{:.1f}", s.cpu_us_per_tx.median) : "-", valid});
      rates.push_back({s.product, s.tps.median, s.tps.ci_low, s.tps.ci_high, c});
      percentiles.push_back({s.product,
                             {{nines(50), s.p50_ms.median},
                              {nines(90), s.p90_ms.median},
                              {nines(99), s.p99_ms.median},
                              {nines(99.9), s.p999_ms.median}},
                             c});
      std::vector<int> samples;
      for (const auto& r : rows)
        if (r.product == s.product && r.test == test && counts_as_result(r)) samples.push_back(r.sample);
      if (auto cdf = cdf_points(pooled_rtts(run_dir, s.product, test, samples)); !cdf.empty())
        cdfs.push_back({s.product, cdf, c});
    }
    const TestKindTraits& traits = test_kind(kind);
    const std::string& what = traits.counted;
    k.heading = "Test " + test + " (" + kind + ")";
    k.caption =
        "Test " + test + ": " + what + " per second and one " + traits.one + "'s time, medians of the valid samples";
    k.note = traits.method;
    std::stable_sort(rates.begin(), rates.end(), [](const Bar& x, const Bar& y) { return x.value > y.value; });
    if (traits.rate_vs_baseline)
      k.plots.push_back(
          {test + "-rate.svg", svg_bar_chart(test + ": " + what + " per second, 95 % interval", what + "/s", rates)});
    k.plots.push_back({test + "-percentiles.svg",
                       svg_line_chart(test + ": latency percentiles (x: 0.3 = p50, 1 = p90, 2 = p99, 3 = p99.9)",
                                      "nines of the percentile", "ms", percentiles)});
    if (!cdfs.empty())
      k.plots.push_back(
          {test + "-latency-cdf.svg", svg_line_chart(test + ": idle round trip, CDF to the 99.5th percentile", "ms",
                                                     "fraction of echoes", cdfs, 1.0)});
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<KindSection> udp_size_sections(const std::vector<SampleRow>& rows,
                                           const std::map<std::string, int>& color) {
  const auto summaries = summarize_udp(rows);
  std::map<std::string, std::map<std::string, Series>> sweeps;  // sweep -> product -> kpps by size
  std::map<std::string, std::map<std::string, Series>> zero_loss;
  std::vector<std::string> order;
  for (const auto& s : summaries) {
    const std::string sweep = sweep_of(s.test);
    if (std::find(order.begin(), order.end(), sweep) == order.end()) order.push_back(sweep);
    if (s.kpps.n == 0) continue;
    Series& line = sweeps[sweep][s.product];
    line.label = s.product, line.color = color_of(color, s.product);
    line.points.push_back({static_cast<double>(s.payload_bytes), s.kpps.median});
    if (s.zero_loss_kpps.n) {
      Series& z = zero_loss[sweep][s.product];
      z.label = s.product, z.color = line.color;
      z.points.push_back({static_cast<double>(s.payload_bytes), s.zero_loss_mbps.median});
    }
  }
  std::vector<KindSection> out;
  for (const auto& sweep : order) {
    if (sweeps[sweep].empty()) continue;
    std::vector<Series> lines, zl;
    for (auto& [product, line] : sweeps[sweep]) {
      std::sort(line.points.begin(), line.points.end());
      if (line.points.size() > 1) lines.push_back(line);
    }
    if (lines.empty()) continue;  // one size: the throughput table says it all
    for (auto& [product, z] : zero_loss[sweep]) std::sort(z.points.begin(), z.points.end()), zl.push_back(z);
    KindSection k;
    k.heading = "UDP " + sweep + ": packets per second by payload size";
    k.table.push_back(
        {"product", "test", "payload B", "kpps", "loss %", "zero-loss Mbit/s", "zero-loss kpps", "valid"});
    for (const auto& s : summaries) {
      if (sweep_of(s.test) != sweep) continue;
      k.table.push_back({s.product, s.test, std::to_string(s.payload_bytes),
                         s.kpps.n ? number_text("{:.1f}", s.kpps.median) : "-",
                         s.loss_pct.n ? number_text("{:.3f}", s.loss_pct.median) : "-",
                         s.zero_loss_mbps.n ? number_text("{:.1f}", s.zero_loss_mbps.median) : "-",
                         s.zero_loss_kpps.n ? number_text("{:.1f}", s.zero_loss_kpps.median) : "-",
                         std::to_string(s.kpps.n) + "/" + std::to_string(s.rows)});
    }
    k.caption = "UDP " + sweep + ": per payload size, medians of the valid samples";
    k.note =
        "kpps: datagrams per second the receiver's interface counted (with a zero-loss search: at the highest rate "
        "within its loss "
        "threshold). Small datagrams show a product's cost per packet, which bulk TCP's 64 KB segments hide.";
    k.plots.push_back({sweep + "-pps-by-size.svg",
                       svg_line_chart(sweep + ": packets per second by payload size", "payload bytes", "kpps", lines)});
    if (!zl.empty())
      k.plots.push_back({sweep + "-zero-loss.svg",
                         svg_line_chart(sweep + ": zero-loss rate by payload size", "payload bytes", "Mbit/s", zl)});
    out.push_back(std::move(k));
  }
  return out;
}

namespace {

// A point split for the chart: its first axis (the x axis when its values are numbers) and
// the rest ("underlay_mtu=9000": one chart per such value).
struct PointParts {
  std::string axis, value, rest;
};

PointParts parts_of(const std::string& point) {
  const size_t semi = point.find(';');
  const std::string first = point.substr(0, semi);
  const size_t eq = first.find('=');
  return {first.substr(0, eq), eq == std::string::npos ? "" : first.substr(eq + 1),
          semi == std::string::npos ? "" : point.substr(semi + 1)};
}

// Whether every point's first axis is the same one, with a number for its value.
bool numeric_first_axis(const SweepCurves& c) {
  for (const auto& p : c.points) {
    const PointParts parts = parts_of(p);
    if (parts.axis != parts_of(c.points.front()).axis || parts.value.empty()) return false;
    if (!std::all_of(parts.value.begin(), parts.value.end(), ::isdigit)) return false;
  }
  return true;
}

// One chart of the points whose other axes are `rest`: x the first axis's value, a line
// per product, its interval bounds pale.
std::vector<Series> sweep_lines(const SweepCurves& c, const std::map<std::string, int>& color,
                                const std::string& rest) {
  std::vector<Series> lines;
  for (size_t p = 0; p < c.products.size(); ++p) {
    Series median, low, high;
    median.label = c.products[p], median.color = color_of(color, c.products[p]);
    low = high = median;
    low.faint = high.faint = true;
    for (size_t q = 0; q < c.points.size(); ++q) {
      const SampleStats& s = c.cells[p][q];
      const PointParts parts = parts_of(c.points[q]);
      if (s.n == 0 || parts.rest != rest) continue;
      const double x = std::stod(parts.value);
      median.points.push_back({x, s.median});
      if (s.n > 1) low.points.push_back({x, s.ci_low}), high.points.push_back({x, s.ci_high});
    }
    for (Series* series : {&median, &low, &high})
      if (series->points.size() > 1) lines.push_back(std::move(*series));
  }
  return lines;
}

// Points as names: one bar per product and point ("nebula, variant=conntrack"), point by
// point, whiskers the median's interval; the product's colour.
std::vector<Bar> sweep_bars(const SweepCurves& c, const std::map<std::string, int>& color) {
  std::vector<Bar> bars;
  for (size_t q = 0; q < c.points.size(); ++q)
    for (size_t p = 0; p < c.products.size(); ++p) {
      const SampleStats& s = c.cells[p][q];
      if (s.n == 0) continue;
      Bar b;
      b.label = c.products[p] + ", " + c.points[q];
      b.value = s.median;
      if (s.n > 1) b.low = s.ci_low, b.high = s.ci_high;
      b.color = color_of(color, c.products[p]);
      bars.push_back(std::move(b));
    }
  return bars;
}

}  // namespace

std::vector<KindSection> sweep_sections(const std::vector<SampleRow>& rows, const std::map<std::string, int>& color) {
  std::vector<KindSection> out;
  for (const auto& c : summarize_sweeps(rows)) {
    // A UDP payload sweep alone has its own section (packets/s by size, zero-loss rates).
    if (std::all_of(c.points.begin(), c.points.end(), [](const std::string& p) {
          return p.rfind("length=", 0) == 0 && p.find(';') == std::string::npos;
        }))
      continue;
    const bool numeric = numeric_first_axis(c);
    KindSection k;
    k.heading = "Sweep " + c.test + ": " + c.unit + " at each point";
    std::vector<std::string> header = {"product"};
    for (const auto& p : c.points) header.push_back(p);
    k.table.push_back(header);
    for (size_t p = 0; p < c.products.size(); ++p) {
      std::vector<std::string> line = {c.products[p]};
      for (const auto& s : c.cells[p]) line.push_back(sweep_cell_text(s));
      k.table.push_back(line);
    }
    k.caption = "Sweep " + c.test + ": median of the valid samples [95 % interval of the median], " + c.unit;
    const std::string chart = numeric ? "compare RUN A B gives each point's verdict. In the chart the pale lines are "
                                        "each product's interval bounds."
                                      : "compare RUN P:A P:B gives the round-paired verdict between two points. The "
                                        "whiskers are each median's 95 % "
                                        "interval.";
    k.note =
        "Every point is a test of its own, measured in the same interleaved rounds as the rest of the run: " + chart +
        " *: fewer than 6 samples, the interval is [min, max] and covers the median with less than 95 %.";
    // Points that are names (variant=none, variant=conntrack) have no x to draw a line
    // along: a bar per product and point, its interval as whiskers, read at a glance.
    if (!numeric) {
      k.plots.push_back({"sweep-" + c.test + ".svg",
                         svg_bar_chart(c.test + ": " + c.unit + " at each point", c.unit, sweep_bars(c, color))});
      out.push_back(std::move(k));
      continue;
    }
    // x: the first axis, one chart per value of the other axes (streams at
    // underlay_mtu=1500, then at 9000).
    std::vector<std::string> rests;
    for (const auto& p : c.points)
      if (std::find(rests.begin(), rests.end(), parts_of(p).rest) == rests.end()) rests.push_back(parts_of(p).rest);
    const std::string x_label = parts_of(c.points.front()).axis;
    for (size_t g = 0; g < rests.size(); ++g) {
      std::vector<Series> lines = sweep_lines(c, color, rests[g]);
      if (lines.empty()) continue;
      const std::string at = rests[g].empty() ? "" : " at " + rests[g];
      k.plots.push_back({"sweep-" + c.test + (rests.size() > 1 ? "-" + std::to_string(g + 1) : "") + ".svg",
                         svg_line_chart(c.test + ": " + c.unit + " by " + x_label + at, x_label, c.unit, lines)});
    }
    out.push_back(std::move(k));
  }
  return out;
}

KindSection sweep_effects_section(const std::vector<SampleRow>& rows, const std::map<std::string, int>& color) {
  KindSection k;
  const auto effects = sweep_effects(rows);
  if (effects.empty()) return k;
  k.heading = "Effects of the swept axes";
  k.table.push_back({"sweep", "axis", "change", "held", "product", "figure", "ratio (interval)", "detects", "verdict"});
  // One chart per sweep and axis: a bar per product and held point, growing from 1.
  std::vector<std::pair<std::string, std::vector<Bar>>> charts;
  for (const auto& e : effects) {
    k.table.push_back({e.sweep, e.axis, e.from + " -> " + e.to, e.held.empty() ? "-" : e.held, e.c.product, e.unit,
                       ratio_text(e.c), detectable_text(e.c), e.c.verdict});
    if (e.c.ratio <= 0) continue;
    const std::string title = e.sweep + ": " + e.unit + " at " + e.axis + " " + e.to + " over " + e.from;
    if (charts.empty() || charts.back().first != title) charts.push_back({title, {}});
    charts.back().second.push_back({e.c.product + (e.held.empty() ? "" : ", " + e.held), e.c.ratio, e.c.ci_low,
                                    e.c.ci_high, color_of(color, e.c.product)});
  }
  for (size_t i = 0; i < charts.size(); ++i)
    k.plots.push_back({"effects-" + std::to_string(i + 1) + ".svg",
                       svg_bar_chart(charts[i].first, "ratio (log axis)", charts[i].second,
                                     {.log = true, .reference = 1, .dots = true})});
  k.caption =
      "Each point over the point with the axis's first value and the other axes held: the product's round-paired ratio "
      "with its interval";
  k.note = sweep_effects_note(effects) + ". vpnlab compare RUN --effects prints the same table.";
  return k;
}

}  // namespace vpnlab
