// How deep a JSON text nests, found before it is parsed: a file of 2 MB nested a million
// levels deep (`[[[[…`) crashed report, diff and history import, whose parse and walk of it
// go one stack frame per level. Every JSON vpnlab reads from a file or a history passes this
// first; what vpnlab writes nests fewer than ten levels.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace vpnlab {

inline constexpr int kMaxJsonDepth = 64;

// Empty when the arrays and objects of `text` nest at most `max_depth` deep; otherwise
// "nested deeper than 64 levels (at byte 65)". Brackets inside strings do not count.
std::string json_nesting_problem(std::string_view text, int max_depth = kMaxJsonDepth);

// The one parse of JSON that came from outside vpnlab's own hands (a file, a history, a raw
// sample, a tool's output, an agent's answer): a value nested deeper than `max_depth` is
// refused before any value is built, so no parse, copy or dump of it recurses past the
// stack. A malformed or too deep text gives a discarded value (is_discarded()); `problem`,
// when given, says why.
nlohmann::json parse_json_bounded(std::string_view text, std::string* problem = nullptr, int max_depth = kMaxJsonDepth);

}  // namespace vpnlab
