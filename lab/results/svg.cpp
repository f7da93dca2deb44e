#include "lab/results/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vpnlab {

namespace {

constexpr double kWidth = 640, kHeight = 360;
constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 70;
constexpr int kTicks = 5;  // axis maxima are 1, 2, 2.5 or 5 x 10^k: five steps give round numbers
constexpr double kLegendRow = 16;
const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string num(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string tick_text(double v) {
  char buf[32];
  if (std::fabs(v) >= 1000) snprintf(buf, sizeof buf, "%.0f", v);
  else snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// A "nice" axis maximum: 1, 2, 2.5 or 5 times a power of ten, at least `v` but for half a
// percent: a 2 s sample whose last interval ends at 2.001 s gets a 0-2 s axis, not 0-5 s.
double nice_max(double v) {
  if (v <= 0) return 1;
  double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p * 1.005 >= v) return m * p;
  return 10 * p;
}

size_t slot_of(int color, size_t position) { return color >= 0 ? static_cast<size_t>(color) : position; }

// Series beyond the palette's ten colours are told apart by their dashes (lines) or marks.
const char* dashes(size_t i) {
  static const char* d[] = {"", "6 3", "2 2", "8 3 2 3"};
  return d[(i / 10) % 4];
}

struct Frame {
  double x_max = 1, y_max = 1;
  double px(double x) const { return kLeft + (kWidth - kLeft - kRight) * x / x_max; }
  double py(double y) const { return kHeight - kBottom - (kHeight - kTop - kBottom) * y / y_max; }
};

// role="img" and a <title> first: screen readers announce the chart by its title.
std::string open_svg(const std::string& title, double height = kHeight) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" + num(kWidth) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " +
         num(kWidth) + " " + num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>" + xml_escape(title) +
         "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
         "<text x=\"" + num(kWidth / 2) + "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" + xml_escape(title) + "</text>\n";
}

std::string y_axis(const Frame& f, const std::string& label) {
  std::string s = "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(kLeft) + "\" y2=\"" + num(kHeight - kBottom) +
                  "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= kTicks; ++i) {
    double v = f.y_max * i / kTicks;
    s += "<line x1=\"" + num(kLeft - 4) + "\" y1=\"" + num(f.py(v)) + "\" x2=\"" + num(kWidth - kRight) + "\" y2=\"" + num(f.py(v)) +
         "\" stroke=\"#ddd\"/>\n<text x=\"" + num(kLeft - 6) + "\" y=\"" + num(f.py(v) + 4) + "\" text-anchor=\"end\">" + tick_text(v) + "</text>\n";
  }
  s += "<text x=\"16\" y=\"" + num((kTop + kHeight - kBottom) / 2) + "\" text-anchor=\"middle\" transform=\"rotate(-90 16 " +
       num((kTop + kHeight - kBottom) / 2) + ")\">" + xml_escape(label) + "</text>\n";
  return s;
}

std::string x_axis(const Frame& f, const std::string& label) {
  std::string s = "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kHeight - kBottom) + "\" x2=\"" + num(kWidth - kRight) + "\" y2=\"" +
                  num(kHeight - kBottom) + "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= kTicks; ++i) {
    double v = f.x_max * i / kTicks;
    s += "<text x=\"" + num(f.px(v)) + "\" y=\"" + num(kHeight - kBottom + 16) + "\" text-anchor=\"middle\">" + tick_text(v) + "</text>\n";
  }
  s += "<text x=\"" + num((kLeft + kWidth - kRight) / 2) + "\" y=\"" + num(kHeight - kBottom + 34) + "\" text-anchor=\"middle\">" +
       xml_escape(label) + "</text>\n";
  return s;
}

// Entries left to right, wrapping onto new rows below the plot; `rows` says how many.
std::string legend(const std::vector<Series>& series, bool lines, int* rows) {
  std::string s;
  double x = kLeft, y = kHeight - 18;
  *rows = series.empty() ? 0 : 1;
  for (size_t i = 0; i < series.size(); ++i) {
    const double width = 24 + 7 * static_cast<double>(series[i].label.size());
    if (x > kLeft && x + width > kWidth - kRight) {
      x = kLeft;
      y += kLegendRow;
      ++*rows;
    }
    const size_t slot = slot_of(series[i].color, i);
    const char* color = kPalette[slot % 10];
    if (lines)
      s += "<line x1=\"" + num(x) + "\" y1=\"" + num(y + 5) + "\" x2=\"" + num(x + 12) + "\" y2=\"" + num(y + 5) + "\" stroke=\"" + color +
           "\" stroke-width=\"3\"" + (*dashes(slot) ? std::string(" stroke-dasharray=\"") + dashes(slot) + "\"" : "") + "/>\n";
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

}  // namespace

std::string svg_bar_chart(const std::string& title, const std::string& y_label, const std::vector<Bar>& bars) {
  Frame f;
  double top = 0;
  for (const auto& b : bars) top = std::max({top, b.value, b.high});
  f.y_max = nice_max(top * 1.05);
  std::string s = open_svg(title) + y_axis(f, y_label);
  double slot = (kWidth - kLeft - kRight) / std::max<double>(1, static_cast<double>(bars.size()));
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    double cx = kLeft + slot * (static_cast<double>(i) + 0.5);
    double w = slot * 0.6;
    s += "<rect x=\"" + num(cx - w / 2) + "\" y=\"" + num(f.py(b.value)) + "\" width=\"" + num(w) + "\" height=\"" +
         num(f.py(0) - f.py(b.value)) + "\" fill=\"" + kPalette[slot_of(b.color, i) % 10] + "\"><title>" + xml_escape(b.label) + ": " + tick_text(b.value) +
         "</title></rect>\n";
    if (b.high > b.low)
      s += "<line x1=\"" + num(cx) + "\" y1=\"" + num(f.py(b.low)) + "\" x2=\"" + num(cx) + "\" y2=\"" + num(f.py(b.high)) +
           "\" stroke=\"black\" stroke-width=\"1.5\"/>\n<line x1=\"" + num(cx - 6) + "\" y1=\"" + num(f.py(b.low)) + "\" x2=\"" + num(cx + 6) +
           "\" y2=\"" + num(f.py(b.low)) + "\" stroke=\"black\"/>\n<line x1=\"" + num(cx - 6) + "\" y1=\"" + num(f.py(b.high)) + "\" x2=\"" +
           num(cx + 6) + "\" y2=\"" + num(f.py(b.high)) + "\" stroke=\"black\"/>\n";
    // The value above the bar (and its whisker): small bars next to a large baseline stay readable.
    s += "<text x=\"" + num(cx) + "\" y=\"" + num(f.py(std::max(b.value, b.high)) - 5) + "\" text-anchor=\"middle\">" + tick_text(b.value) + "</text>\n";
    s += "<text x=\"" + num(cx) + "\" y=\"" + num(kHeight - kBottom + 16) + "\" text-anchor=\"middle\">" + xml_escape(b.label) + "</text>\n";
  }
  s += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(f.py(0)) + "\" x2=\"" + num(kWidth - kRight) + "\" y2=\"" + num(f.py(0)) + "\" stroke=\"black\"/>\n";
  return s + "</svg>\n";
}

std::string svg_line_chart(const std::string& title, const std::string& x_label, const std::string& y_label, const std::vector<Series>& series,
                           double y_max) {
  Frame f = frame_for(series);
  if (y_max > 0) f.y_max = y_max;
  int rows = 0;
  std::string key = legend(series, true, &rows);
  std::string s = open_svg(title, height_for(rows)) + y_axis(f, y_label) + x_axis(f, x_label);
  for (size_t i = 0; i < series.size(); ++i) {
    std::string pts;
    for (const auto& [x, y] : series[i].points) pts += (pts.empty() ? "" : " ") + num(f.px(x)) + "," + num(f.py(y));
    const size_t slot = slot_of(series[i].color, i);
    s += "<polyline fill=\"none\" stroke=\"" + std::string(kPalette[slot % 10]) + "\" stroke-width=\"2\"" +
         (*dashes(slot) ? std::string(" stroke-dasharray=\"") + dashes(slot) + "\"" : "") + " points=\"" + pts + "\"/>\n";
  }
  return s + key + "</svg>\n";
}

std::string svg_scatter(const std::string& title, const std::string& x_label, const std::string& y_label, const std::vector<Series>& series) {
  Frame f = frame_for(series);
  int rows = 0;
  std::string key = legend(series, false, &rows);
  std::string s = open_svg(title, height_for(rows)) + y_axis(f, y_label) + x_axis(f, x_label);
  for (size_t i = 0; i < series.size(); ++i)
    for (const auto& [x, y] : series[i].points)
      // The eleventh series on: the same colours, outlined, so no two series look alike.
      s += "<circle cx=\"" + num(f.px(x)) + "\" cy=\"" + num(f.py(y)) + "\" r=\"4\" fill=\"" + kPalette[slot_of(series[i].color, i) % 10] +
           "\" fill-opacity=\"0.8\"" + (slot_of(series[i].color, i) >= 10 ? " stroke=\"black\"" : "") + "/>\n";
  return s + key + "</svg>\n";
}

std::string svg_strip_plot(const std::string& title, const std::string& y_label, const std::vector<Series>& columns) {
  Frame f;
  double top = 0;
  for (const auto& c : columns)
    for (const auto& [x, y] : c.points) top = std::max(top, y);
  f.y_max = nice_max(top * 1.05);
  std::string s = open_svg(title) + y_axis(f, y_label);
  const double slot = (kWidth - kLeft - kRight) / std::max<double>(1, static_cast<double>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i) {
    const double cx = kLeft + slot * (static_cast<double>(i) + 0.5);
    const auto& pts = columns[i].points;
    for (size_t k = 0; k < pts.size(); ++k) {
      // Spread across 60 % of the column, in sample order: equal values stay apart.
      double dx = pts.size() > 1 ? slot * 0.6 * (static_cast<double>(k) / static_cast<double>(pts.size() - 1) - 0.5) : 0;
      const size_t slot = slot_of(columns[i].color, i);
      s += "<circle cx=\"" + num(cx + dx) + "\" cy=\"" + num(f.py(pts[k].second)) + "\" r=\"3.5\" fill=\"" + kPalette[slot % 10] +
           "\" fill-opacity=\"0.85\"" + (slot >= 10 ? " stroke=\"black\"" : "") + "><title>" + xml_escape(columns[i].label) + " sample " +
           tick_text(pts[k].first) + ": " + tick_text(pts[k].second) + "</title></circle>\n";
    }
    s += "<text x=\"" + num(cx) + "\" y=\"" + num(kHeight - kBottom + 16) + "\" text-anchor=\"middle\">" + xml_escape(columns[i].label) + "</text>\n";
  }
  s += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(f.py(0)) + "\" x2=\"" + num(kWidth - kRight) + "\" y2=\"" + num(f.py(0)) + "\" stroke=\"black\"/>\n";
  return s + "</svg>\n";
}

std::string svg_stacked_bars(const std::string& title, const std::string& y_label, const std::vector<std::string>& parts,
                             const std::vector<StackedBar>& bars) {
  Frame f;
  double top = 0;
  for (const auto& b : bars) {
    double sum = 0;
    for (double v : b.values) sum += std::max(0.0, v);
    top = std::max(top, sum);
  }
  f.y_max = nice_max(top * 1.05);
  std::vector<Series> keys;
  for (const auto& p : parts) keys.push_back({p, {}});
  int rows = 0;
  std::string key = legend(keys, false, &rows);
  std::string s = open_svg(title, height_for(rows)) + y_axis(f, y_label);
  const double slot = (kWidth - kLeft - kRight) / std::max<double>(1, static_cast<double>(bars.size()));
  for (size_t i = 0; i < bars.size(); ++i) {
    const double cx = kLeft + slot * (static_cast<double>(i) + 0.5), w = slot * 0.6;
    double base = 0;
    for (size_t k = 0; k < bars[i].values.size() && k < parts.size(); ++k) {
      const double v = std::max(0.0, bars[i].values[k]);
      s += "<rect x=\"" + num(cx - w / 2) + "\" y=\"" + num(f.py(base + v)) + "\" width=\"" + num(w) + "\" height=\"" +
           num(f.py(base) - f.py(base + v)) + "\" fill=\"" + kPalette[k % 10] + "\"><title>" + xml_escape(bars[i].label) + " " +
           xml_escape(parts[k]) + ": " + tick_text(v) + "</title></rect>\n";
      base += v;
    }
    s += "<text x=\"" + num(cx) + "\" y=\"" + num(f.py(base) - 5) + "\" text-anchor=\"middle\">" + tick_text(base) + "</text>\n";
    s += "<text x=\"" + num(cx) + "\" y=\"" + num(kHeight - kBottom + 16) + "\" text-anchor=\"middle\">" + xml_escape(bars[i].label) + "</text>\n";
  }
  s += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(f.py(0)) + "\" x2=\"" + num(kWidth - kRight) + "\" y2=\"" + num(f.py(0)) + "\" stroke=\"black\"/>\n";
  return s + key + "</svg>\n";
}

}  // namespace vpnlab
