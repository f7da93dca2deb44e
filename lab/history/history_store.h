// The history: every run kept in one SQLite file (a schema of its own, version 1, migrated
// forward and never overwritten), each with its provenance and its rows, so that a
// product's figures can be followed across runs and versions. A run goes in whole or not at
// all (one transaction; a killed vpnlab or a full disk leaves the file as it was), and a run
// that is there already adds nothing (by run id).
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/history/sqlite.h"

namespace vpnlab {

inline constexpr int kHistorySchema = 1;
// PRAGMA application_id of a vpnlab history ("vpnl"): any other SQLite file is refused.
inline constexpr int64_t kHistoryApplicationId = 0x76706e6c;

// Where the history lives: $VPNLAB_HISTORY, else (root) /var/lib/vpnlab/history.sqlite,
// else $XDG_DATA_HOME/vpnlab/history.sqlite (default ~/.local/share).
std::string default_history_path();

struct HistoryRun {
  std::string run_id, started, topology_file, vpnlab_version;
  std::string products;  // "baseline, wireguard-go" in the run's order
  int rows = 0, valid = 0;
};

class HistoryStore {
 public:
  // Opens the history at `path`, creating it (and its directory) when absent. A file that
  // is not a vpnlab history, is damaged or has a newer schema is an error naming it.
  static Result<HistoryStore> open(const std::string& path);
  const std::string& path() const { return db_.path(); }

  // Adds the run directory's environment.json provenance and results.csv rows (both read and
  // checked as every reader does). false: its run id is in the history already.
  Result<bool> add_run(const std::string& run_dir);
  // Every run, oldest first.
  Result<std::vector<HistoryRun>> runs();

 private:
  explicit HistoryStore(Sqlite db) : db_(std::move(db)) {}
  Status migrate(int from);
  Sqlite db_;
};

}  // namespace vpnlab
