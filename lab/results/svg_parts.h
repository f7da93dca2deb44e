// The pieces every chart of lab/results shares: the canvas, number formatting, the palette,
// a frame from data to pixels and its axes. For the chart files only (svg.cpp, svg_trend.cpp).
#pragma once
#include <string>

namespace vpnlab::svg_parts {

constexpr double kWidth = 640, kHeight = 360;
constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 70;
constexpr int kTicks = 5;  // axis maxima are 1, 2, 2.5 or 5 x 10^k: five steps give round numbers
constexpr double kLegendRow = 16;
extern const char* const kPalette[10];

std::string num(double v);
std::string tick_text(double v);
// A "nice" axis maximum: 1, 2, 2.5 or 5 times a power of ten, at least `v` but for half a
// percent: a 2 s sample whose last interval ends at 2.001 s gets a 0-2 s axis, not 0-5 s.
double nice_max(double v);
size_t slot_of(int color, size_t position);
// Series beyond the palette's ten colours are told apart by their dashes (lines) or marks.
const char* dashes(size_t i);

struct Frame {
  double x_max = 1, y_max = 1;
  double px(double x) const { return kLeft + (kWidth - kLeft - kRight) * x / x_max; }
  double py(double y) const { return kHeight - kBottom - (kHeight - kTop - kBottom) * y / y_max; }
};

// role="img" and a <title> first: screen readers announce the chart by its title.
std::string open_svg(const std::string& title, double height = kHeight);
std::string y_axis(const Frame& f, const std::string& label);
std::string x_axis(const Frame& f, const std::string& label);

}  // namespace vpnlab::svg_parts
