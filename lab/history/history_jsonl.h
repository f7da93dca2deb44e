// Moving history between machines without a server: `history export --jsonl` writes one
// JSON object per run per line (its provenance and its results.csv text), and `history
// import FILE.jsonl` merges such a file by run id. Every line is input: it passes the same
// checks as a run directory (environment fields and types, every results.csv row), and a
// line longer than a run's files can be is refused before it is held in memory whole.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "lab/history/history_store.h"

namespace vpnlab {

// What a line may hold: a run's results.csv and environment.json at their own bounds.
inline constexpr uint64_t kMaxExportLineBytes = (32ull << 20) + (4ull << 20) + 4096;

// One run as one line (no newline at its end).
std::string export_line(const RunRecord& run);
// One line back (without its newline): the same checks as a run directory; `where` names
// the file and line in errors.
Result<RunRecord> parse_export_line(const std::string& line, const std::string& where);
// Every run, oldest first. Returns how many were written.
Result<size_t> export_jsonl(HistoryStore& store, std::ostream& out);

struct ImportCount {
  size_t added = 0, present = 0;
  std::vector<std::string> changed;  // "RUN_ID: extended ..." / "RUN_ID: replaced ...", one per run changed
};
// The lines of `file` into the store, each run in its own transaction: a bad line is an
// error naming the file and line, after the lines before it were merged. A run id there
// already with other rows is an error (HistoryStore::add) unless `replace`.
Result<ImportCount> import_jsonl(HistoryStore& store, const std::string& file, bool replace = false);

}  // namespace vpnlab
