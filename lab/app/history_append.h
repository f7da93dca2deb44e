// The history file as the verbs open it, and a finished run appended to it as `run` does.
#pragma once
#include <string>

#include "lab/base/result.h"
#include "lab/history/history_store.h"

namespace vpnlab {

// --history PATH, else the default place.
Result<HistoryStore> open_history(const std::string& path, HistoryAccess access = HistoryAccess::read_write);

// A finished run into the history at `path` ("" = default_history_path()), after its
// outputs: a history that cannot take it is a warning naming why and how to add it later,
// never the run's failure.
void add_to_history(const std::string& path, const std::string& run_dir);

}  // namespace vpnlab
