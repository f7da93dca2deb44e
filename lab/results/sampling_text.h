// The sentence that says why adaptive sampling stopped, from environment.json's
// "sampling" (lab/run/adaptive.h): printed after `run`'s table and in the report.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace vpnlab {

// "" when the run had no --precision.
std::string sampling_line(const nlohmann::json& environment);

}  // namespace vpnlab
