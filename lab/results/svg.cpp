#include "lab/results/svg.h"

#include "lab/results/svg_parts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vpnlab {

namespace {

using namespace svg_parts;

// Entries left to right, wrapping onto new rows below the plot; `rows` says how many.
std::string legend(const std::vector<Series>& series, bool lines, int* rows) {
  std::string s;
  double x = kLeft, y = kHeight - 18;
  *rows = series.empty() ? 0 : 1;
  for (size_t i = 0; i < series.size(); ++i) {
    if (series[i].faint) continue;
    const double width = 24 + 7 * static_cast<double>(series[i].label.size());
    if (x > kLeft && x + width > kWidth - kRight) {
      x = kLeft;
      y += kLegendRow;
      ++*rows;
    }
    const size_t slot = slot_of(series[i].color, i);
    const char* color = kPalette[slot % 10];
    if (lines)
      s += "<line x1=\"" + num(x) + "\" y1=\"" + num(y + 5) + "\" x2=\"" + num(x + 12) + "\" y2=\"" + num(y + 5) +
           "\" stroke=\"" + color + "\" stroke-width=\"3\"" +
           (*dashes(slot) ? std::string(" stroke-dasharray=\"") + dashes(slot) + "\"" : "") + "/>\n";
    else
      s += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"10\" height=\"10\" fill=\"" + color + "\"" +
           (slot >= 10 ? " stroke=\"black\"" : "") + "/>\n";
    s += "<text x=\"" + num(x + 14) + "\" y=\"" + num(y + 9) + "\">" + xml_escape(series[i].label) + "</text>\n";
    x += width;
  }
  return s;
}

// The canvas grows by the legend's extra rows; the plot area stays where it is.
double height_for(int legend_rows) { return kHeight + kLegendRow * std::max(0, legend_rows - 1); }

Frame frame_for(const std::vector<Series>& series) {
  Frame f;
  double xm = 0, ym = 0;
  for (const auto& s : series)
    for (const auto& [x, y] : s.points) xm = std::max(xm, x), ym = std::max(ym, y);
  f.x_max = nice_max(xm);
  f.y_max = nice_max(ym * 1.05);
  return f;
}

// Charts with one row per product: the labels stand left of the plot, one per row, so 12 or
// 30 products never overlap however long their names (vertical bars crowded them).
struct RowFrame {
  double label_width = 100;   // the label column
  double x_lo = 0, x_hi = 1;  // the axis, in data units
  bool log = false;
  size_t rows = 0;
  static constexpr double kRow = 24, kTopRows = 44, kRightRows = 70;  // room right of the plot for the values
  double left() const { return label_width; }
  double right() const { return kWidth - kRightRows; }
  double bottom() const { return kTopRows + kRow * static_cast<double>(std::max<size_t>(rows, 1)); }
  double height() const { return bottom() + 48; }
  double cy(size_t i) const { return kTopRows + kRow * (static_cast<double>(i) + 0.5); }
  double px(double x) const {
    x = std::clamp(x, x_lo, x_hi);  // an unbounded whisker ends at the axis' edge
    if (log)
      return left() + (right() - left()) * (std::log10(std::max(x, x_lo)) - std::log10(x_lo)) /
                          (std::log10(x_hi) - std::log10(x_lo));
    return left() + (right() - left()) * (x - x_lo) / (x_hi - x_lo);
  }
};

// Labels past 36 characters are cut (the whole name stays in the row's tooltip).
std::string row_label(const std::string& label) { return label.size() > 36 ? label.substr(0, 35) + "\u2026" : label; }

RowFrame row_frame(const std::vector<std::string>& labels, double lo, double hi, bool log) {
  RowFrame f;
  size_t longest = 0;
  for (const auto& l : labels) longest = std::max(longest, row_label(l).size());
  f.label_width = std::clamp(7.0 * static_cast<double>(longest) + 16, 60.0, 270.0);
  f.rows = labels.size();
  f.log = log && lo > 0 && hi > 0;
  if (f.log) {
    // Whole decades around the data: a tunnel at 0.03 of the baseline and one at 0.9 both read.
    f.x_lo = std::pow(10, std::floor(std::log10(lo)));
    f.x_hi = std::pow(10, std::ceil(std::log10(hi)));
    if (f.x_hi <= f.x_lo) f.x_hi = f.x_lo * 10;
  } else {
    f.x_lo = 0;
    f.x_hi = nice_max(hi * 1.05);
  }
  return f;
}

// Ticks of a log axis: 1-2-5 within up to two decades, powers of ten beyond.
std::vector<double> log_ticks(const RowFrame& f) {
  std::vector<double> t;
  const int decades = static_cast<int>(std::lround(std::log10(f.x_hi / f.x_lo)));
  for (double d = f.x_lo; d <= f.x_hi * 1.0001; d *= 10)
    for (double m : decades <= 2 ? std::vector<double>{1, 2, 5} : std::vector<double>{1})
      if (m * d <= f.x_hi * 1.0001) t.push_back(m * d);
  return t;
}

std::string row_axes(const RowFrame& f, const std::string& x_label, const std::vector<std::string>& labels) {
  std::string s;
  std::vector<double> ticks = f.log ? log_ticks(f) : std::vector<double>{};
  if (!f.log)
    for (int i = 0; i <= kTicks; ++i) ticks.push_back(f.x_hi * i / kTicks);
  for (double v : ticks)
    s += "<line x1=\"" + num(f.px(v)) + "\" y1=\"" + num(RowFrame::kTopRows) + "\" x2=\"" + num(f.px(v)) + "\" y2=\"" +
         num(f.bottom() + 4) + "\" stroke=\"#ddd\"/>\n<text x=\"" + num(f.px(v)) + "\" y=\"" + num(f.bottom() + 18) +
         "\" text-anchor=\"middle\">" + tick_text(v) + "</text>\n";
  s += "<line x1=\"" + num(f.left()) + "\" y1=\"" + num(f.bottom()) + "\" x2=\"" + num(f.right()) + "\" y2=\"" +
       num(f.bottom()) + "\" stroke=\"black\"/>\n<text x=\"" + num((f.left() + f.right()) / 2) + "\" y=\"" +
       num(f.bottom() + 36) + "\" text-anchor=\"middle\">" + xml_escape(x_label + (f.log ? " (log scale)" : "")) +
       "</text>\n";
  for (size_t i = 0; i < labels.size(); ++i)
    s += "<text x=\"" + num(f.left() - 8) + "\" y=\"" + num(f.cy(i) + 4) + "\" text-anchor=\"end\"><title>" +
         xml_escape(labels[i]) + "</title>" + xml_escape(row_label(labels[i])) + "</text>\n";
  return s;
}

}  // namespace

std::string svg_bar_chart(const std::string& title, const std::string& x_label, const std::vector<Bar>& bars,
                          BarScale scale) {
  double lo = scale.reference > 0 ? scale.reference : 0, hi = scale.reference;
  std::vector<std::string> labels;
  for (const auto& b : bars) {
    labels.push_back(b.label);
    for (double v : {b.value, b.low, b.high})
      if (v > 0 && std::isfinite(v))
        lo = lo > 0 ? std::min(lo, v) : v,
        hi = std::max(hi, v);  // an unbounded whisker must not stretch the axis forever
  }
  if (scale.dots && scale.log && scale.reference > 0 && lo > 0) {  // as many decades below the reference as above
    const double spread = std::max(hi / scale.reference, scale.reference / lo);
    lo = scale.reference / spread, hi = scale.reference * spread;
  }
  RowFrame f = row_frame(labels, lo, hi, scale.log);
  std::string s = open_svg(title, f.height()) + row_axes(f, x_label, labels);
  // Bars grow from the reference on a log axis (a ratio of 1: "as fast as"), from 0 on a linear one.
  const double from = f.log ? (scale.reference > 0 ? scale.reference : f.x_lo) : 0;
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = f.cy(i), x0 = scale.dots ? f.px(std::max(b.value, f.x_lo)) : f.px(from),
                 x1 = f.px(std::max(b.value, f.log ? f.x_lo : 0.0));
    const std::string fill = std::string("fill=\"") + kPalette[slot_of(b.color, i) % 10] + "\"" +
                             (slot_of(b.color, i) >= 10 ? " stroke=\"black\"" : "");
    const std::string tip = "<title>" + xml_escape(b.label) + ": " + tick_text(b.value) + "</title>";
    if (!scale.dots)
      s += "<rect x=\"" + num(std::min(x0, x1)) + "\" y=\"" + num(y - 8) + "\" width=\"" + num(std::fabs(x1 - x0)) +
           "\" height=\"16\" " + fill + ">" + tip + "</rect>\n";
    if (b.high > b.low && b.low > (f.log ? 0 : -1))
      s += "<line x1=\"" + num(f.px(b.low)) + "\" y1=\"" + num(y) + "\" x2=\"" + num(f.px(b.high)) + "\" y2=\"" +
           num(y) + "\" stroke=\"black\" stroke-width=\"1.5\"/>\n<line x1=\"" + num(f.px(b.low)) + "\" y1=\"" +
           num(y - 5) + "\" x2=\"" + num(f.px(b.low)) + "\" y2=\"" + num(y + 5) + "\" stroke=\"black\"/>\n<line x1=\"" +
           num(f.px(b.high)) + "\" y1=\"" + num(y - 5) + "\" x2=\"" + num(f.px(b.high)) + "\" y2=\"" + num(y + 5) +
           "\" stroke=\"black\"/>\n";
    if (scale.dots)  // over its whisker
      s += "<circle cx=\"" + num(x1) + "\" cy=\"" + num(y) + "\" r=\"5.5\" " + fill +
           (slot_of(b.color, i) >= 10 ? "" : " stroke=\"#222\"") + ">" + tip + "</circle>\n";
    // The value right of the bar and its whisker: every bar is readable, however small.
    s += "<text x=\"" + num(std::max({x0, x1, f.px(std::max(b.high, f.log ? f.x_lo : 0.0))}) + 6) + "\" y=\"" +
         num(y + 4) + "\">" + tick_text(b.value) + "</text>\n";
  }
  if (scale.reference > 0)
    s += "<line x1=\"" + num(f.px(scale.reference)) + "\" y1=\"" + num(RowFrame::kTopRows - 4) + "\" x2=\"" +
         num(f.px(scale.reference)) + "\" y2=\"" + num(f.bottom()) + "\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n";
  s += "<line x1=\"" + num(f.left()) + "\" y1=\"" + num(RowFrame::kTopRows) + "\" x2=\"" + num(f.left()) + "\" y2=\"" +
       num(f.bottom()) + "\" stroke=\"black\"/>\n";
  return s + "</svg>\n";
}

std::string svg_strip_plot(const std::string& title, const std::string& x_label, const std::vector<Series>& rows) {
  double hi = 0;
  std::vector<std::string> labels;
  for (const auto& r : rows) {
    labels.push_back(r.label);
    for (const auto& [x, y] : r.points) hi = std::max(hi, y);
  }
  RowFrame f = row_frame(labels, 0, hi, false);
  std::string s = open_svg(title, f.height()) + row_axes(f, x_label, labels);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& pts = rows[i].points;
    const size_t slot = slot_of(rows[i].color, i);
    for (size_t k = 0; k < pts.size(); ++k) {
      // Spread over the row's height in sample order: equal values stay apart.
      const double dy = pts.size() > 1 ? 14 * (static_cast<double>(k) / static_cast<double>(pts.size() - 1) - 0.5) : 0;
      s += "<circle cx=\"" + num(f.px(pts[k].second)) + "\" cy=\"" + num(f.cy(i) + dy) + "\" r=\"3.5\" fill=\"" +
           kPalette[slot % 10] + "\" fill-opacity=\"0.85\"" + (slot >= 10 ? " stroke=\"black\"" : "") + "><title>" +
           xml_escape(rows[i].label) + " sample " + tick_text(pts[k].first) + ": " + tick_text(pts[k].second) +
           "</title></circle>\n";
    }
  }
  return s + "</svg>\n";
}

std::string svg_stacked_bars(const std::string& title, const std::string& x_label,
                             const std::vector<std::string>& parts, const std::vector<StackedBar>& bars) {
  double hi = 0;
  std::vector<std::string> labels;
  for (const auto& b : bars) {
    labels.push_back(b.label);
    double sum = 0;
    for (double v : b.values) sum += std::max(0.0, v);
    hi = std::max(hi, sum);
  }
  RowFrame f = row_frame(labels, 0, hi, false);
  std::string s = open_svg(title, f.height() + kLegendRow) + row_axes(f, x_label, labels);
  for (size_t i = 0; i < bars.size(); ++i) {
    double base = 0;
    for (size_t k = 0; k < bars[i].values.size() && k < parts.size(); ++k) {
      const double v = std::max(0.0, bars[i].values[k]);
      s += "<rect x=\"" + num(f.px(base)) + "\" y=\"" + num(f.cy(i) - 8) + "\" width=\"" +
           num(f.px(base + v) - f.px(base)) + "\" height=\"16\" fill=\"" + kPalette[k % 10] + "\"><title>" +
           xml_escape(bars[i].label) + " " + xml_escape(parts[k]) + ": " + tick_text(v) + "</title></rect>\n";
      base += v;
    }
    s += "<text x=\"" + num(f.px(base) + 6) + "\" y=\"" + num(f.cy(i) + 4) + "\">" + tick_text(base) + "</text>\n";
  }
  // The parts' key under the axis title.
  double x = f.left();
  for (size_t k = 0; k < parts.size(); ++k) {
    s += "<rect x=\"" + num(x) + "\" y=\"" + num(f.bottom() + 44) + "\" width=\"10\" height=\"10\" fill=\"" +
         kPalette[k % 10] + "\"/>\n<text x=\"" + num(x + 14) + "\" y=\"" + num(f.bottom() + 53) + "\">" +
         xml_escape(parts[k]) + "</text>\n";
    x += 24 + 7 * static_cast<double>(parts[k].size());
  }
  return s + "</svg>\n";
}

std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                           const std::vector<Series>& series, double y_max) {
  Frame f = frame_for(series);
  if (y_max > 0) f.y_max = y_max;
  int rows = 0;
  std::string key = legend(series, true, &rows);
  std::string s = open_svg(title, height_for(rows)) + y_axis(f, y_label) + x_axis(f, x_label);
  // The samples' faint lines first, every median over them.
  for (bool faint : {true, false})
    for (size_t i = 0; i < series.size(); ++i) {
      if (series[i].faint != faint) continue;
      std::string pts;
      for (const auto& [x, y] : series[i].points) pts += (pts.empty() ? "" : " ") + num(f.px(x)) + "," + num(f.py(y));
      const size_t slot = slot_of(series[i].color, i);
      s += "<polyline fill=\"none\" stroke=\"" + std::string(kPalette[slot % 10]) +
           (faint ? "\" stroke-opacity=\"0.3\" stroke-width=\"1\"" : "\" stroke-width=\"2\"") +
           (*dashes(slot) && !faint ? std::string(" stroke-dasharray=\"") + dashes(slot) + "\"" : "") + " points=\"" +
           pts + "\"/>\n";
    }
  return s + key + "</svg>\n";
}

std::string svg_scatter(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<Series>& series) {
  Frame f = frame_for(series);
  int rows = 0;
  std::string key = legend(series, false, &rows);
  std::string s = open_svg(title, height_for(rows)) + y_axis(f, y_label) + x_axis(f, x_label);
  for (size_t i = 0; i < series.size(); ++i)
    for (const auto& [x, y] : series[i].points)
      // The eleventh series on: the same colours, outlined, so no two series look alike.
      s += "<circle cx=\"" + num(f.px(x)) + "\" cy=\"" + num(f.py(y)) + "\" r=\"4\" fill=\"" +
           kPalette[slot_of(series[i].color, i) % 10] + "\" fill-opacity=\"0.8\"" +
           (slot_of(series[i].color, i) >= 10 ? " stroke=\"black\"" : "") + "/>\n";
  return s + key + "</svg>\n";
}

void add_sample_lines(const std::string& label, int color,
                      const std::vector<std::vector<std::pair<double, double>>>& samples, std::vector<Series>* out) {
  size_t longest = 0, drawn = 0;
  for (const auto& points : samples) {
    if (points.empty()) continue;
    out->push_back({label, points, color, /*faint=*/true});
    longest = std::max(longest, points.size());
    ++drawn;
  }
  if (drawn == 0) return;
  Series median{label, {}, color, false};
  for (size_t i = 0; i < longest; ++i) {
    std::vector<double> xs, ys;
    for (const auto& points : samples)
      if (i < points.size()) xs.push_back(points[i].first), ys.push_back(points[i].second);
    if (2 * xs.size() <= drawn) break;  // past where most samples ended: a median of a few
    std::sort(xs.begin(), xs.end());
    std::sort(ys.begin(), ys.end());
    auto mid = [](const std::vector<double>& v) {
      return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    median.points.push_back({mid(xs), mid(ys)});
  }
  out->push_back(median);
}

}  // namespace vpnlab
