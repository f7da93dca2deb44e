// `vpnlab suite diff A B`: what changed between two scorecards (two machines, two versions,
// two dates) beyond the intervals each one printed. A cell of A and one of B are the same
// when scenario, test, product and figure agree; it changed when the two 95 % intervals of
// its value are disjoint (each scorecard's own interval: no new statistics between files
// whose runs are not paired).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"

namespace vpnlab {

inline constexpr int kSuiteDiffSchema = 1;

// DIR/scorecard.json, or FILE itself when it is not a directory; checked field by field.
Result<nlohmann::json> read_scorecard(const std::string& dir_or_file);

// {"schema", "a", "b", "changed": [...], "same": N, "only_in_a": [...], "only_in_b": [...]};
// each changed cell with both values and intervals, B/A, and "better"/"worse" for B.
nlohmann::json scorecard_diff(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_name,
                              const std::string& b_name);
std::string scorecard_diff_text(const nlohmann::json& diff);

}  // namespace vpnlab
