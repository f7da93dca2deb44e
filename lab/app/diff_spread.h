// `vpnlab diff A B` compares two separate runs, and a run's interval holds only its own
// samples' spread: whole runs of one build differ by more (bench/run_spread_bench:
// wireguard-go's Gbit/s moved twice as far between runs as a run's interval said). The
// history's comparable runs show how far (lab/history/run_spread.h); that spread is added to
// each throughput comparison the history knows, and a line says which, and where it was not
// known.
#pragma once
#include <string>
#include <vector>

#include "lab/results/compare.h"

namespace vpnlab {

// `history_path`: "" = the default history. `relative`: the comparisons are ratios to each
// run's baseline (the history's "ratio" series), else Gbit/s. Returns the lines to print
// under the table. A history that is absent or cannot be read is said there, not an error.
std::string add_between_run_spreads(const std::string& history_path, const std::string& run_a_id,
                                    const std::string& run_b_id, bool relative, std::vector<Comparison>* comparisons);

}  // namespace vpnlab
