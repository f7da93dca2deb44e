// The history: every run kept in one SQLite file (a schema of its own, version 1, migrated
// forward and never overwritten), each with its provenance and its rows, so that a
// product's figures can be followed across runs and versions. A run goes in whole or not at
// all (one transaction; a killed vpnlab or a full disk leaves the file as it was), and a run
// that is there already adds nothing (by run id) unless it has more rows now (resumed).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"
#include "lab/history/sqlite.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

inline constexpr int kHistorySchema = 2;
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

// One run as the history holds it: its provenance (environment.json) and its rows.
struct RunRecord {
  std::string run_id, started;
  std::string source;  // how it came in: "run", "import DIR", "import FILE.jsonl (...)"
  nlohmann::json environment;
  std::vector<SampleRow> rows;
};

// A run directory as a record, through the run-file checks every reader uses.
Result<RunRecord> read_run_directory(const std::string& run_dir);
// A record from an environment and rows held elsewhere (an export's line), with the same
// checks; `where` names it in messages.
Result<RunRecord> run_record_from(const nlohmann::json& environment, std::vector<SampleRow> rows,
                                  const std::string& source, const std::string& where);

enum class HistoryAccess { read_write, read_only };

class HistoryStore {
 public:
  // Opens the history at `path`, creating it (and its directory) when absent. A file that
  // is not a vpnlab history, is damaged or has a newer schema is an error naming it.
  // read_only: the verbs that only read (listing, series, check, report, export) write
  // nothing, not even a journal, and need no write access; a missing file is an error.
  static Result<HistoryStore> open(const std::string& path, HistoryAccess access = HistoryAccess::read_write);
  const std::string& path() const { return db_.path(); }

  // Adds the run directory's environment.json provenance and results.csv rows (both read and
  // checked as every reader does). The history is append-only: a run id already there with
  // the same rows (or more) is left as it is (false, "already in the history"); with the same rows
  // and more after them (a run resumed since) its entry is extended (true); with rows that
  // differ it is an error naming the first difference, unless `replace` (true, "replaced:
  // ..."). *said, when given, gets what was done in words.
  Result<bool> add_run(const std::string& run_dir, const std::string& source = "", bool replace = false,
                       std::string* said = nullptr);
  Result<bool> add(const RunRecord& run, bool replace = false, std::string* said = nullptr);
  // Each run that has rows of `product` or `product@TAG` (every run when empty), oldest
  // first, with all its rows read back through the results.csv checks (a tampered history
  // is a located error); one run in memory at a time.
  Status for_each_run(const std::string& product, const std::function<Status(const RunRecord&)>& each);
  // Every run, oldest first.
  Result<std::vector<HistoryRun>> runs();

 private:
  // The file's tables, columns and indexes are the ones this version makes, and it has no
  // view or trigger: checked before anything of it is trusted.
  Status check_schema();
  // One run's rows, parsed with the results.csv header they were stored under.
  Result<std::vector<SampleRow>> rows_of(const std::string& run_id, const std::string& csv_header,
                                         const std::string& where);

  explicit HistoryStore(Sqlite db) : db_(std::move(db)) {}
  Status check_kind();
  Status migrate();
  Sqlite db_;
};

}  // namespace vpnlab
