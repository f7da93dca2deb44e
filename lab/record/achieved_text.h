// An impaired link's achieved path as environment.json keeps it (achieved_paths[link],
// written by lab/run/achieved_path.h), in words: for the run's log and the report alike.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace vpnlab {

// "round trip 20.4 ms median (min 20.1, p99 21.9; asked 20.0), loss 2 of 500 = 0.40 %
// (99 %: 0.05-1.77; asked 0.00), 0 reordered", then "; departs from what was asked: ..."
// when it did not; "not measured: WHY" when it was not.
std::string achieved_text(const nlohmann::json& achieved);

// Two measurements of one link alike: both measured, median round trips within 10 % + 1 ms
// of each other (what a path may depart from what was asked), loss intervals that overlap,
// and order kept by both or by neither. Measured paths always differ a little.
bool achieved_alike(const nlohmann::json& a, const nlohmann::json& b);

// A round trip as these texts show it: two decimals below 10 ms, one above.
std::string round_trip_text(double ms);

}  // namespace vpnlab
