// Memory over time from a sample's raw record (raw/PRODUCT/TEST/sample-N-rss.txt, lines
// "t_s node rss_kb" every 100 ms): the busiest node's daemons, in MB, for the report.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace vpnlab {

// (seconds, MB of the node with the most resident memory at that time); empty when the file
// is missing (guests, older runs). Lines that do not parse (a hand edit) are skipped.
std::vector<std::pair<double, double>> rss_over_time(const std::string& run_dir, const std::string& product,
                                                     const std::string& test, int sample);

}  // namespace vpnlab
