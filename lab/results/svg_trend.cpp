#include <algorithm>
#include <cmath>
#include <ctime>

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

// Every point's time, when all have one and they span some time.
bool on_time_axis(const std::vector<TrendMark>& points) {
  if (points.size() < 2) return false;
  for (const auto& p : points)
    if (!std::isfinite(p.at)) return false;
  return points.back().at > points.front().at;
}

// x of each point: by time on a time axis (half a slot of margin each side), else evenly.
std::vector<double> xs_of(const std::vector<TrendMark>& points, bool timed) {
  std::vector<double> xs;
  const size_t n = points.size();
  const double margin = (kWidth - kLeft - kRight) / static_cast<double>(2 * std::max<size_t>(n, 4));
  for (size_t i = 0; i < n; ++i)
    xs.push_back(timed ? kLeft + margin +
                             (kWidth - kLeft - kRight - 2 * margin) * (points[i].at - points.front().at) /
                                 (points.back().at - points.front().at)
                       : slot_x(i, n));
  return xs;
}

std::string slanted_label(double x, double y, const std::string& text) {
  const std::string label = text.size() > 12 ? text.substr(0, 11) + "\u2026" : text;
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"end\" transform=\"rotate(-40 " + num(x) + " " +
         num(y) + ")\" font-size=\"11\">" + xml_escape(label) + "</text>\n";
}

// A time axis' ticks: five dates from the first run to the last, with the hour when the
// runs span less than two days.
std::string time_ticks(const std::vector<TrendMark>& points, const std::vector<double>& xs, double bottom) {
  std::string s;
  const double t0 = points.front().at, t1 = points.back().at;
  for (int k = 0; k <= 4; ++k) {
    const double t = t0 + (t1 - t0) * k / 4, x = xs.front() + (xs.back() - xs.front()) * k / 4;
    const std::time_t secs = static_cast<std::time_t>(t);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char text[32];
    std::strftime(text, sizeof text, t1 - t0 >= 2 * 86400 ? "%Y-%m-%d" : "%m-%d %H:%M", &tm);
    s += "<line x1=\"" + num(x) + "\" y1=\"" + num(bottom) + "\" x2=\"" + num(x) + "\" y2=\"" + num(bottom + 5) +
         "\" stroke=\"black\"/>\n" + slanted_label(x, bottom + 18, text);
  }
  return s;
}

// A version per group: a shaded band under every other group and its name once, centred.
std::string group_labels(const std::vector<TrendMark>& points, const std::vector<double>& xs, double bottom) {
  std::string s;
  const double half = points.size() > 1 ? (xs[1] - xs[0]) / 2 : (kWidth - kLeft - kRight) / 2;
  double last_label = -1e9;
  size_t shade = 0;
  for (size_t i = 0; i < points.size();) {
    size_t j = i;
    while (j + 1 < points.size() && points[j + 1].group == points[i].group) ++j;
    if (shade++ % 2 == 1)
      s += "<rect x=\"" + num(xs[i] - half) + "\" y=\"" + num(kTop) + "\" width=\"" + num(xs[j] - xs[i] + 2 * half) +
           "\" height=\"" + num(bottom - kTop) + "\" fill=\"#000\" fill-opacity=\"0.05\"/>\n";
    const double x = (xs[i] + xs[j]) / 2;
    if (x - last_label >= kLabelStep) s += slanted_label(x, bottom + 18, points[i].group), last_label = x;
    i = j + 1;
  }
  return s;
}

}  // namespace

std::string svg_trend_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                            const std::vector<TrendMark>& points) {
  Frame f;
  double top = 0;
  for (const auto& p : points) top = std::max({top, p.value, p.high});
  f.y_max = nice_max(top * 1.05);
  std::string s = open_svg(title, kTrendHeight) + y_axis(f, y_label);
  const double bottom = kHeight - kBottom;
  s += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(bottom) + "\" x2=\"" + num(kWidth - kRight) + "\" y2=\"" +
       num(bottom) + "\" stroke=\"black\"/>\n";
  const size_t n = points.size();
  const bool timed = on_time_axis(points);
  const bool grouped =
      !timed && n > 0 && std::all_of(points.begin(), points.end(), [](const TrendMark& p) { return !p.group.empty(); });
  const std::vector<double> xs = xs_of(points, timed);
  if (grouped)
    s += group_labels(points, xs, bottom);
  else if (timed)
    s += time_ticks(points, xs, bottom);
  // The interval as a band: highs left to right, lows back.
  std::string band;
  for (size_t i = 0; i < n; ++i) band += (band.empty() ? "" : " ") + num(xs[i]) + "," + num(f.py(points[i].high));
  for (size_t i = n; i-- > 0;) band += " " + num(xs[i]) + "," + num(f.py(points[i].low));
  if (n > 1)
    s += "<polygon fill=\"" + std::string(kPalette[0]) + "\" fill-opacity=\"0.18\" stroke=\"none\" points=\"" + band +
         "\"/>\n";
  std::string line;
  for (size_t i = 0; i < n; ++i) line += (line.empty() ? "" : " ") + num(xs[i]) + "," + num(f.py(points[i].value));
  s += "<polyline fill=\"none\" stroke=\"" + std::string(kPalette[0]) + "\" stroke-width=\"2\" points=\"" + line +
       "\"/>\n";
  // Change points: a dashed line halfway between the last point of one level and the first of the next.
  for (size_t i = 1; i < n; ++i) {
    if (!points[i].change) continue;
    const double x = (xs[i - 1] + xs[i]) / 2;
    s += "<line class=\"change\" x1=\"" + num(x) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(x) + "\" y2=\"" +
         num(bottom) + "\" stroke=\"#c0392b\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n<text x=\"" +
         num(x + 3) + "\" y=\"" + num(kTop + 10) + "\" fill=\"#c0392b\" font-size=\"11\">level change</text>\n";
  }
  const double slot = (kWidth - kLeft - kRight) / static_cast<double>(std::max<size_t>(n, 1));
  const size_t every = static_cast<size_t>(std::ceil(kLabelStep / slot));
  for (size_t i = 0; i < n; ++i) {
    const double x = xs[i], y = f.py(points[i].value);
    s += "<g><title>" + xml_escape(points[i].tooltip) + "</title>";
    if (points[i].high > points[i].low)
      s += "<line x1=\"" + num(x) + "\" y1=\"" + num(f.py(points[i].high)) + "\" x2=\"" + num(x) + "\" y2=\"" +
           num(f.py(points[i].low)) + "\" stroke=\"" + kPalette[0] + "\"/>";
    s += "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"3.5\" fill=\"" + kPalette[0] + "\"/></g>\n";
    if (timed || grouped) continue;  // dated ticks or one label per version instead
    // The last point always keeps its label: it is the one a reader looks for.
    if (i % every != 0 && i + 1 != n) continue;
    if (i + 1 != n && (n - 1 - i) < every) continue;  // would crowd the last label
    s += slanted_label(x, bottom + 18, points[i].label);
  }
  s += "<text x=\"" + num((kLeft + kWidth - kRight) / 2) + "\" y=\"" + num(kTrendHeight - 8) +
       "\" text-anchor=\"middle\">" + xml_escape(x_label) + "</text>\n";
  return s + "</svg>\n";
}

}  // namespace vpnlab
