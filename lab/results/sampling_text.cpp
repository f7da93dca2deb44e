#include "lab/results/sampling_text.h"

#include <cstdio>

namespace vpnlab {

std::string sampling_line(const nlohmann::json& environment) {
  if (!environment.is_object() || !environment.contains("sampling") || !environment["sampling"].is_object()) return "";
  const nlohmann::json& s = environment["sampling"];
  auto number = [&](const char* key) { return s.contains(key) && s[key].is_number() ? s[key].get<double>() : -1.0; };
  char buf[512];
  const double widest = number("widest_half_width");
  std::string width = "no interval yet";  // null in the file: fewer than 2 paired rounds
  if (widest >= 0) {
    snprintf(buf, sizeof buf, "±%.1f %%", 100 * widest);
    width = buf;
  }
  snprintf(buf, sizeof buf, "sampling: %s after %d rounds (asked ±%.1f %%; widest %s: %s; each look's interval at %.2f %%, %zu looks planned, so 95 %% overall)",
           s.value("stopped", std::string("?")).c_str(), static_cast<int>(number("rounds")), 100 * number("precision"), width.c_str(),
           s.value("widest_series", std::string("-")).c_str(), 100 * number("confidence_per_look"),
           s.contains("looks") && s["looks"].is_array() ? s["looks"].size() : size_t{0});
  return buf;
}

}  // namespace vpnlab
