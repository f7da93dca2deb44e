// Whole numbers read from JSON someone else may have written. nlohmann's get<int>() (and
// value(key, 0), which calls it) converts whatever number it finds: a double outside the
// target's range is undefined behaviour (fuzz_host_part found an MTU of 1.5e+115 in a plan's
// part), a negative one read as unsigned or an int64 read as int wraps without a word. These
// take an integer, or a double with a whole value, only when it fits the target type; every
// whole number vpnlab reads from JSON goes through them (scripts/check-file-door.sh,
// kind json-int).
#pragma once
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace vpnlab {

// The value of `v` as a T, or nothing when `v` is not a whole number within T's range
// (a string, a fraction, 1e300, -1 for an unsigned T).
template <std::integral T>
std::optional<T> whole_number(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const auto n = v.get_ref<const nlohmann::json::number_unsigned_t&>();
    if (std::in_range<T>(n)) return static_cast<T>(n);
    return std::nullopt;
  }
  if (v.is_number_integer()) {
    const auto n = v.get_ref<const nlohmann::json::number_integer_t&>();
    if (std::in_range<T>(n)) return static_cast<T>(n);
    return std::nullopt;
  }
  if (v.is_number_float()) {
    const double d = v.get_ref<const nlohmann::json::number_float_t&>();
    // Compared as doubles before any conversion: the bounds of a 64-bit T round up to a
    // power of two, so the upper test is strict.
    if (!std::isfinite(d) || d != std::trunc(d)) return std::nullopt;
    if (d < static_cast<double>(std::numeric_limits<T>::min()) || d >= std::ldexp(1.0, std::numeric_limits<T>::digits))
      return std::nullopt;
    return static_cast<T>(d);
  }
  return std::nullopt;
}

// obj[key] as a T; `fallback` when obj is not an object, lacks the key, or holds anything
// but a whole number within T's range there. Never throws: for fields a reader can do
// without (a count shown in a report, a figure in an agent's summary).
template <std::integral T>
T whole_number_or(const nlohmann::json& obj, const std::string& key, T fallback) {
  if (!obj.is_object()) return fallback;
  const auto it = obj.find(key);
  if (it == obj.end()) return fallback;
  return whole_number<T>(*it).value_or(fallback);
}

// obj.at(key) as a T, for readers that catch std::exception as "malformed" (a plan's part,
// an agent's request): a missing key throws nlohmann's out_of_range, a value that is not a
// whole number within T's range throws std::out_of_range naming the key and the value.
template <std::integral T>
T whole_number_at(const nlohmann::json& obj, const std::string& key) {
  const nlohmann::json& v = obj.at(key);
  if (auto n = whole_number<T>(v)) return *n;
  throw std::out_of_range("'" + key + "': " + v.dump().substr(0, 40) + " is not a whole number from " +
                          std::to_string(std::numeric_limits<T>::min()) + " to " +
                          std::to_string(std::numeric_limits<T>::max()));
}

}  // namespace vpnlab
