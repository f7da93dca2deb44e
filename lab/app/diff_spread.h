// `vpnlab diff A B` compares two separate runs, and a run's interval holds only its own
// samples' spread: whole runs of one build differ by more (bench/run_spread_bench:
// wireguard-go's Gbit/s moved twice as far between runs as a run's interval said). The
// history's comparable runs show how far (lab/history/run_spread.h); that spread is added to
// each comparison the history knows (throughput and each judged cost), and a line says which,
// and where it was not known.
#pragma once
#include <string>
#include <vector>

#include "lab/results/compare.h"

namespace vpnlab {

// `history_path`: "" = the default history. `metric_key`: the history's series the
// comparisons are of ("ratio": each run's baseline's; "gbps"; a cost's results.csv column).
// Returns the lines to print under the table; `say_unknown`: also where the spread is not
// known, and why (a history that is absent or cannot be read is said there, not an error).
std::string add_between_run_spreads(const std::string& history_path, const std::string& run_a_id,
                                    const std::string& run_b_id, const std::string& metric_key, bool say_unknown,
                                    std::vector<Comparison>* comparisons);

}  // namespace vpnlab
