#include "lab/record/achieved_text.h"
#include "lab/base/json_number.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace vpnlab {

bool achieved_alike(const nlohmann::json& x, const nlohmann::json& y) {
  if (!x.is_object() || !y.is_object() || x.contains("not_measured") || y.contains("not_measured")) return x == y;
  const double rx = x.value("rtt_p50_ms", 0.0), ry = y.value("rtt_p50_ms", 0.0);
  if (std::fabs(rx - ry) > 0.1 * std::min(rx, ry) + 1) return false;
  if (x.value("loss_high_pct", 0.0) < y.value("loss_low_pct", 0.0) ||
      y.value("loss_high_pct", 0.0) < x.value("loss_low_pct", 0.0))
    return false;
  return (whole_number_or(x, "reordered", 0) > 0) == (whole_number_or(y, "reordered", 0) > 0);
}

std::string round_trip_text(double ms) { return fmt::format("{:.{}f}", ms, ms < 10 ? 2 : 1); }

std::string achieved_text(const nlohmann::json& j) {
  if (j.contains("not_measured")) return "not measured: " + j.value("not_measured", std::string());
  const int sent = whole_number_or(j, "sent", 0), answered = whole_number_or(j, "answered", 0);
  std::string text = fmt::format(
      "round trip {} ms median (min {}, p99 {}; asked {}), loss {} of {} = {:.2f} % ({:.0f} %: {:.2f}-{:.2f}; asked "
      "{:.2f}), {} reordered",
      round_trip_text(j.value("rtt_p50_ms", 0.0)), round_trip_text(j.value("rtt_min_ms", 0.0)),
      round_trip_text(j.value("rtt_p99_ms", 0.0)), round_trip_text(j.value("asked_rtt_ms", 0.0)), sent - answered, sent,
      j.value("loss_pct", 0.0), 100 * j.value("loss_level", 0.0), j.value("loss_low_pct", 0.0),
      j.value("loss_high_pct", 0.0), j.value("asked_loss_pct", 0.0), whole_number_or(j, "reordered", 0));
  if (j.contains("departures") && !j["departures"].empty()) {
    std::string why;
    for (const auto& d : j["departures"]) why += (why.empty() ? "" : "; ") + d.get<std::string>();
    text += "; departs from what was asked: " + why;
  }
  return text;
}

}  // namespace vpnlab
