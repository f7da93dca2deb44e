// RAII around SQLite's C handles, and errors that name the database file and SQLite's own
// text: one connection, prepared statements with bound values (never SQL built from input).
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

// The largest text a history holds in one value (a results.csv row, a run's environment of
// at most 4 MiB): anything larger is refused when read, with SQLITE_TOOBIG.
inline constexpr int kMaxHistoryValueBytes = 8 << 20;

struct SqliteCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct SqliteFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using SqliteDb = std::unique_ptr<sqlite3, SqliteCloser>;
using SqliteStmt = std::unique_ptr<sqlite3_stmt, SqliteFinalizer>;

// A bound value: text, integer, real, or NULL.
using SqlValue = std::variant<std::nullptr_t, std::string, int64_t, double>;

class Sqlite {
 public:
  // Opens (or, with `create`, creates) `path`; writers wait up to `busy_ms` for another
  // vpnlab process's transaction instead of failing.
  static Result<Sqlite> open(const std::string& path, bool create, int busy_ms = 30000, bool read_only = false);
  const std::string& path() const { return path_; }

  // Runs statements without results (schema, pragmas, BEGIN/COMMIT).
  Status exec(const std::string& sql);
  // One statement with bound values; each result row as its columns' text (NULL: nullopt).
  using Row = std::vector<std::optional<std::string>>;
  Result<std::vector<Row>> query(const std::string& sql, const std::vector<SqlValue>& values = {});
  Status run(const std::string& sql, const std::vector<SqlValue>& values);
  // Whether the last failure was another connection's lock (SQLITE_BUSY or SQLITE_LOCKED).
  bool last_failure_busy() const;

 private:
  Error failure(const std::string& what, int rc) const;
  std::string path_;
  SqliteDb db_;
};

}  // namespace vpnlab
