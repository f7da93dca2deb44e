// Small SVG charts for reports: bars with interval whiskers, lines over time, and a
// scatter. Written by hand because the three shapes are simple and Debian packages no
// C++ plotting library that writes SVG without a toolkit; the output is deterministic
// (fixed number formatting), so reports can be golden-tested. Text is XML-escaped.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "lab/base/xml_escape.h"

namespace vpnlab {

// `color`: a palette slot, so that one product has one colour in every chart of a report;
// -1 takes the position in the chart.
struct Bar {
  std::string label;
  double value = 0, low = 0, high = 0;  // whisker from low to high
  int color = -1;
};

struct Series {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (x, y)
  int color = -1;
  bool faint = false;  // a line chart's one sample among many: thin, pale, not in the legend
};

// Each sample's series as a faint line and, bold and labelled, their median at every step
// (the steps a majority of the samples reached): every product's samples on one axis.
void add_sample_lines(const std::string& label, int color,
                      const std::vector<std::vector<std::pair<double, double>>>& samples, std::vector<Series>* out);

// Bar, strip and stacked charts have one row per product, its name left of the plot: names
// never overlap, however many products a run has.
struct BarScale {
  bool log = false;      // a log axis over whole decades: ratios of 0.03 and 0.9 both read
  double reference = 0;  // > 0: a dashed line there (1 for a ratio); on a log axis bars grow from it
  // Ratios: a dot with its whisker instead of a bar (a bar from 1 down to 0.03 reads as "about
  // 1" at a glance), on a log axis as wide on both sides of the reference.
  bool dots = false;
};
// One horizontal bar per product, in the given order; whiskers from low to high where high > low.
std::string svg_bar_chart(const std::string& title, const std::string& x_label, const std::vector<Bar>& bars,
                          BarScale scale = {});

// One row per series (its label), each point's y drawn as a dot along the row, spread across
// the row's height by its order: every sample visible, not only the median.
std::string svg_strip_plot(const std::string& title, const std::string& x_label, const std::vector<Series>& rows);

// One stacked horizontal bar per label, segments in the order of `parts` (named in a key).
struct StackedBar {
  std::string label;
  std::vector<double> values;  // one per part
};
std::string svg_stacked_bars(const std::string& title, const std::string& x_label,
                             const std::vector<std::string>& parts, const std::vector<StackedBar>& bars);
// `y_max` > 0 fixes the y axis (a CDF ends at 1); 0 fits it to the data.
std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<Series>& series, double y_max = 0);
// A figure across runs: one slot per point along x, labelled (a version, a date); y the value
// with its interval as a band and whiskers; a dashed line where a new level starts (a
// change point). Labels that would crowd are thinned: every point keeps its tooltip.
struct TrendMark {
  std::string label;    // under the axis
  std::string tooltip;  // run id, value, interval
  double value = 0, low = 0, high = 0;
  bool change = false;  // a new level starts at this point
  // Seconds since the epoch (UTC): when every point has one, points stand on a time axis
  // (a week's gap looks like a week) with dated ticks instead of evenly spaced labels.
  double at = NAN;
  // A version's name: consecutive points of one group share one label and a shaded band,
  // instead of the name repeated under every run.
  std::string group;
};
std::string svg_trend_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                            const std::vector<TrendMark>& points);
std::string svg_scatter(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<Series>& series);

}  // namespace vpnlab
