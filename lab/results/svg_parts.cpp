#include "lab/results/svg_parts.h"

#include <fmt/format.h>
#include <cmath>
#include <cstdio>

#include "lab/base/xml_escape.h"

namespace vpnlab::svg_parts {

const char* const kPalette[10] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string num(double v) { return fmt::format("{:.1f}", v); }

std::string tick_text(double v) {
  std::string buf;
  if (std::fabs(v) >= 1000)
    buf = fmt::format("{:.0f}", v);
  else
    buf = fmt::format("{:.3g}", v);
  return buf;
}

double nice_max(double v) {
  if (v <= 0) return 1;
  double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p * 1.005 >= v) return m * p;
  return 10 * p;
}

size_t slot_of(int color, size_t position) { return color >= 0 ? static_cast<size_t>(color) : position; }

const char* dashes(size_t i) {
  static const char* d[] = {"", "6 3", "2 2", "8 3 2 3"};
  return d[(i / 10) % 4];
}

std::string open_svg(const std::string& title, double height) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" + num(kWidth) + "\" height=\"" +
         num(height) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>" + xml_escape(title) +
         "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" + "<text x=\"" + num(kWidth / 2) +
         "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" + xml_escape(title) + "</text>\n";
}

std::string y_axis(const Frame& f, const std::string& label) {
  std::string s = "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(kLeft) + "\" y2=\"" +
                  num(kHeight - kBottom) + "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= kTicks; ++i) {
    double v = f.y_max * i / kTicks;
    s += "<line x1=\"" + num(kLeft - 4) + "\" y1=\"" + num(f.py(v)) + "\" x2=\"" + num(kWidth - kRight) + "\" y2=\"" +
         num(f.py(v)) + "\" stroke=\"#ddd\"/>\n<text x=\"" + num(kLeft - 6) + "\" y=\"" + num(f.py(v) + 4) +
         "\" text-anchor=\"end\">" + tick_text(v) + "</text>\n";
  }
  s += "<text x=\"16\" y=\"" + num((kTop + kHeight - kBottom) / 2) +
       "\" text-anchor=\"middle\" transform=\"rotate(-90 16 " + num((kTop + kHeight - kBottom) / 2) + ")\">" +
       xml_escape(label) + "</text>\n";
  return s;
}

std::string x_axis(const Frame& f, const std::string& label) {
  std::string s = "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kHeight - kBottom) + "\" x2=\"" + num(kWidth - kRight) +
                  "\" y2=\"" + num(kHeight - kBottom) + "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= kTicks; ++i) {
    double v = f.x_max * i / kTicks;
    s += "<text x=\"" + num(f.px(v)) + "\" y=\"" + num(kHeight - kBottom + 16) + "\" text-anchor=\"middle\">" +
         tick_text(v) + "</text>\n";
  }
  s += "<text x=\"" + num((kLeft + kWidth - kRight) / 2) + "\" y=\"" + num(kHeight - kBottom + 34) +
       "\" text-anchor=\"middle\">" + xml_escape(label) + "</text>\n";
  return s;
}

}  // namespace vpnlab::svg_parts
