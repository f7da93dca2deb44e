// How deep a JSON text nests, found before it is parsed: a file of 2 MB nested a million
// levels deep (`[[[[…`) crashed report, diff and history import, whose parse and walk of it
// go one stack frame per level. Every JSON vpnlab reads from a file or a history passes this
// first; what vpnlab writes nests fewer than ten levels.
#pragma once
#include <string>
#include <string_view>

namespace vpnlab {

inline constexpr int kMaxJsonDepth = 64;

// Empty when the arrays and objects of `text` nest at most `max_depth` deep; otherwise
// "nested deeper than 64 levels (at byte 65)". Brackets inside strings do not count.
std::string json_nesting_problem(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace vpnlab
