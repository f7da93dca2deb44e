// `vpnlab history`: the runs kept in the history file (lab/history), and `history import RUN...`
// to add run directories to it (the runs made before the history existed count too).
#pragma once
#include "lab/cli/args.h"

namespace vpnlab {

int cmd_history(const Args& a);

// A finished run into the history at `path` ("" = default_history_path()), after its
// outputs: a history that cannot take it is a warning naming why and how to add it later,
// never the run's failure.
void add_to_history(const std::string& path, const std::string& run_dir);

}  // namespace vpnlab
