#include <algorithm>
#include <cmath>

#include "lab/results/svg.h"
#include "lab/results/svg_parts.h"

namespace vpnlab {

using namespace svg_parts;

namespace {

constexpr double kTrendHeight = kHeight + 50;  // room for slanted labels under the axis
constexpr double kLabelStep = 18;              // the least room between two slanted labels

double slot_x(size_t i, size_t n) {
  const double width = kWidth - kLeft - kRight;
  return kLeft + width * (static_cast<double>(i) + 0.5) / static_cast<double>(std::max<size_t>(n, 1));
}

}  // namespace

std::string svg_trend_chart(const std::string& title, const std::string& x_label, const std::string& y_label, const std::vector<TrendMark>& points) {
  Frame f;
  double top = 0;
  for (const auto& p : points) top = std::max({top, p.value, p.high});
  f.y_max = nice_max(top * 1.05);
  std::string s = open_svg(title, kTrendHeight) + y_axis(f, y_label);
  const double bottom = kHeight - kBottom;
  s += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(bottom) + "\" x2=\"" + num(kWidth - kRight) + "\" y2=\"" + num(bottom) + "\" stroke=\"black\"/>\n";
  const size_t n = points.size();
  // The interval as a band: highs left to right, lows back.
  std::string band;
  for (size_t i = 0; i < n; ++i) band += (band.empty() ? "" : " ") + num(slot_x(i, n)) + "," + num(f.py(points[i].high));
  for (size_t i = n; i-- > 0;) band += " " + num(slot_x(i, n)) + "," + num(f.py(points[i].low));
  if (n > 1) s += "<polygon fill=\"" + std::string(kPalette[0]) + "\" fill-opacity=\"0.18\" stroke=\"none\" points=\"" + band + "\"/>\n";
  std::string line;
  for (size_t i = 0; i < n; ++i) line += (line.empty() ? "" : " ") + num(slot_x(i, n)) + "," + num(f.py(points[i].value));
  s += "<polyline fill=\"none\" stroke=\"" + std::string(kPalette[0]) + "\" stroke-width=\"2\" points=\"" + line + "\"/>\n";
  // Change points: a dashed line halfway between the last point of one level and the first of the next.
  for (size_t i = 1; i < n; ++i) {
    if (!points[i].change) continue;
    const double x = (slot_x(i - 1, n) + slot_x(i, n)) / 2;
    s += "<line class=\"change\" x1=\"" + num(x) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(x) + "\" y2=\"" + num(bottom) +
         "\" stroke=\"#c0392b\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n<text x=\"" + num(x + 3) + "\" y=\"" + num(kTop + 10) +
         "\" fill=\"#c0392b\" font-size=\"11\">level change</text>\n";
  }
  const double slot = (kWidth - kLeft - kRight) / static_cast<double>(std::max<size_t>(n, 1));
  const size_t every = static_cast<size_t>(std::ceil(kLabelStep / slot));
  for (size_t i = 0; i < n; ++i) {
    const double x = slot_x(i, n), y = f.py(points[i].value);
    s += "<g><title>" + xml_escape(points[i].tooltip) + "</title>";
    if (points[i].high > points[i].low)
      s += "<line x1=\"" + num(x) + "\" y1=\"" + num(f.py(points[i].high)) + "\" x2=\"" + num(x) + "\" y2=\"" + num(f.py(points[i].low)) +
           "\" stroke=\"" + kPalette[0] + "\"/>";
    s += "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"3.5\" fill=\"" + kPalette[0] + "\"/></g>\n";
    // The last point always keeps its label: it is the one a reader looks for.
    if (i % every != 0 && i + 1 != n) continue;
    if (i + 1 != n && (n - 1 - i) < every) continue;  // would crowd the last label
    const std::string label = points[i].label.size() > 12 ? points[i].label.substr(0, 11) + "\u2026" : points[i].label;
    s += "<text x=\"" + num(x) + "\" y=\"" + num(bottom + 18) + "\" text-anchor=\"end\" transform=\"rotate(-40 " + num(x) + " " +
         num(bottom + 18) + ")\" font-size=\"11\">" + xml_escape(label) + "</text>\n";
  }
  s += "<text x=\"" + num((kLeft + kWidth - kRight) / 2) + "\" y=\"" + num(kTrendHeight - 8) + "\" text-anchor=\"middle\">" + xml_escape(x_label) +
       "</text>\n";
  return s + "</svg>\n";
}

}  // namespace vpnlab
