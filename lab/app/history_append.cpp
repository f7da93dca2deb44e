#include "lab/app/history_append.h"

#include <spdlog/spdlog.h>

#include "lab/history/history_store.h"

namespace vpnlab {

Result<HistoryStore> open_history(const std::string& path, HistoryAccess access) {
  return HistoryStore::open(path.empty() ? default_history_path() : path, access);
}

void add_to_history(const std::string& path, const std::string& run_dir) {
  auto store = open_history(path);
  auto added = store ? store->add_run(run_dir, "run") : Result<bool>(store.error());
  if (!added) {
    spdlog::warn(
        "the run is not in the history: {} ({}); the run is complete: 'vpnlab history import {}' adds it later",
        added.error().message, added.error().hint, run_dir);
    return;
  }
  spdlog::info("history: {} {}", store->path(), *added ? "has this run now" : "had this run already");
}

}  // namespace vpnlab
