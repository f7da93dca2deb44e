#include "lab/base/json_depth.h"

namespace vpnlab {

std::string json_nesting_problem(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return "nested deeper than " + std::to_string(max_depth) + " levels (at byte " + std::to_string(i + 1) + ")";
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return "";
}

nlohmann::json parse_json_bounded(std::string_view text, std::string* problem, int max_depth) {
  if (std::string deep = json_nesting_problem(text, max_depth); !deep.empty()) {
    if (problem) *problem = deep;
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (problem && j.is_discarded()) *problem = "not valid JSON";
  return j;
}

}  // namespace vpnlab
