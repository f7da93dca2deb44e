#include "lab/results/sampling_text.h"
#include "lab/base/json_number.h"

#include <fmt/format.h>
#include <cstdio>

namespace vpnlab {

std::string sampling_line(const nlohmann::json& environment) {
  if (!environment.is_object() || !environment.contains("sampling") || !environment["sampling"].is_object()) return "";
  const nlohmann::json& s = environment["sampling"];
  auto number = [&](const char* key) { return s.contains(key) && s[key].is_number() ? s[key].get<double>() : -1.0; };
  std::string buf;
  const double widest = number("widest_half_width");
  std::string width = "no interval yet";  // null in the file: fewer than 2 paired rounds
  if (widest >= 0) {
    buf = fmt::format("±{:.1f} %", 100 * widest);
    width = buf;
  }
  // Files before looks at every round recorded the round counts they looked at.
  std::string rule;
  if (s.contains("first_look")) {
    rule = fmt::format("a look after every round from round {}, each interval at {:.1f} %, so 95 % overall",
                       whole_number_or(s, "first_look", 0), 100 * number("confidence_per_look"));
  } else {
    const size_t looks = s.contains("looks") && s["looks"].is_array() ? s["looks"].size() : size_t{0};
    rule = fmt::format("each look's interval at {:.2f} %, {} look{} planned, so 95 % overall",
                       100 * number("confidence_per_look"), looks, looks == 1 ? "" : "s");
  }
  buf = fmt::format("sampling: {} after {} rounds (asked ±{:.1f} %; widest {}: {}; {})",
                    s.value("stopped", std::string("?")), static_cast<int>(number("rounds")), 100 * number("precision"),
                    width, s.value("widest_series", std::string("-")), rule);
  std::string line = buf;
  // Series stop one by one: those that did not reach the target, each with where it ended.
  std::string missed;
  if (s.contains("series") && s["series"].is_array())
    for (const auto& x : s["series"]) {
      if (!x.is_object() || x.value("met", true)) continue;
      std::string where = x.value("why_not", std::string("?"));
      if (x.contains("half_width") && x["half_width"].is_number()) {
        buf = fmt::format("±{:.1f} % after {} rounds, ", 100 * x["half_width"].get<double>(),
                          whole_number_or(x, "rounds", 0));
        where = buf + where;
      }
      missed += "\n    " + x.value("series", std::string("?")) + " (" + where + ")";
    }
  if (!missed.empty()) {
    buf = fmt::format("\n  not known to ±{:.1f} %:", 100 * number("precision"));
    line += buf + missed;
  }
  return line;
}

}  // namespace vpnlab
