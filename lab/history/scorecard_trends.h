// A scorecard cell's past: where the history holds earlier runs of the product, the series of
// its headline figure ordered by version, with its change points (lab/history/trend.h's series,
// comparable runs only). Gbit/s follows the ratio to the same run's baseline, which cancels
// what drifted for the whole machine between runs; transactions/s follows itself.
#pragma once
#include <nlohmann/json.hpp>

#include "lab/history/history_store.h"

namespace vpnlab {

// Adds cell["trend"] = {metric, environment, points: [{version, run_id, date, value, low,
// high, n, change_point}]} to every headline cell whose product has a series of two points or
// more; the rest are left as they are.
Status add_scorecard_trends(HistoryStore& store, nlohmann::json* scorecard);

}  // namespace vpnlab
