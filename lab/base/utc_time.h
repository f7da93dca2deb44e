// The wall clock as the run files write it: UTC, ISO 8601 to the second.
#pragma once
#include <string>

namespace vpnlab {

// "2026-12-03T01:24:44Z"
std::string utc_now();

}  // namespace vpnlab
