// `vpnlab history report`: one self-contained HTML page (inline SVG and CSS, nothing
// fetched) with a trend chart per product, test and metric: x the runs by date or the
// product's versions, y the figure with its 95 % interval as a band, change points marked;
// under each chart its points as a table, and the points of other environments apart.
#pragma once
#include <string>
#include <vector>

#include "lab/history/trend.h"

namespace vpnlab {

std::string history_page_html(const std::vector<Trend>& trends, const std::string& history_path, bool by_version);

// Writes DIR/history.html (inside DIR only: lab/base/out_dir.h); returns its path.
Result<std::string> write_history_page(const std::string& dir, const std::vector<Trend>& trends,
                                       const std::string& history_path, bool by_version);

// A point's x label: its version (by version) or its date and time ("12-03 14:05").
std::string point_label(const TrendPoint& p, bool by_version);

}  // namespace vpnlab
