#include "lab/history/sqlite.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace vpnlab {

Error Sqlite::failure(const std::string& what, int rc) const {
  std::string text = db_ ? sqlite3_errmsg(db_.get()) : sqlite3_errstr(rc);
  Error e = make_error(path_ + ": " + what + ": " + text);
  if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
    e.hint =
        "it is not a vpnlab history (or it is damaged): give another path with --history, or move it away; it is never "
        "overwritten";
  else if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
    e.hint = "another vpnlab process held it longer than the wait; try again";
  else if (rc == SQLITE_TOOBIG)
    e.hint = "a value in it is larger than vpnlab ever stores (" + std::to_string(kMaxHistoryValueBytes >> 20) +
             " MiB): it is not a history vpnlab wrote";
  else if (rc == SQLITE_FULL)
    e.hint = "the disk is full: the history is as it was before this change";
  else if (rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY || rc == SQLITE_PERM)
    e.hint = "give a writable path with --history PATH (or VPNLAB_HISTORY)";
  return e;
}

bool Sqlite::last_failure_busy() const {
  const int rc = db_ ? sqlite3_errcode(db_.get()) : SQLITE_OK;
  return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

namespace {

// A read-only look at a history where this user could not write beside it, or the file is
// another user's: "file:PATH?mode=ro&immutable=1" (no lock, no -wal or -shm made beside it).
// A non-root `vpnlab history` on root's WAL file failed with "attempt to write a readonly
// database", and where it could write the directory it left its own -wal and -shm there.
std::string read_only_uri(const std::string& path) {
  std::string uri = "file:";
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : path) {
    if (c == '?' || c == '#' || c == '%' || c < 0x21 || c >= 0x7f) {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri + "?mode=ro&immutable=1";
}

// The user's own file in a directory it may write: a read opens it read-write with every
// write refused (PRAGMA query_only), so that closing it removes SQLite's -wal and -shm as a
// writer's close does (a read-only connection leaves them: it may not checkpoint), and it
// still sees a writer's changes (an immutable one would not).
bool owned_and_writable(const std::string& path) {
  struct stat st {};
  const std::string dir =
      path.find('/') == std::string::npos ? "." : path.substr(0, std::max<size_t>(path.rfind('/'), 1));
  return ::stat(path.c_str(), &st) == 0 && st.st_uid == geteuid() && access(dir.c_str(), W_OK) == 0;
}

}  // namespace

Result<Sqlite> Sqlite::open(const std::string& path, bool create, int busy_ms, bool read_only) {
  Sqlite s;
  s.path_ = path;
  sqlite3* raw = nullptr;
  const bool immutable = read_only && !owned_and_writable(path);
  int flags = (immutable ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
                         : SQLITE_OPEN_READWRITE | (create && !read_only ? SQLITE_OPEN_CREATE : 0)) |
              SQLITE_OPEN_NOFOLLOW;
  int rc = sqlite3_open_v2(immutable ? read_only_uri(path).c_str() : path.c_str(), &raw, flags, nullptr);
  s.db_.reset(raw);  // closed even when the open failed
  if (rc != SQLITE_OK) return s.failure("cannot open", rc);
  if (read_only && !immutable) {
    rc = sqlite3_exec(raw, "PRAGMA query_only = ON", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return s.failure("cannot make the connection read-only", rc);
  }
  sqlite3_extended_result_codes(raw, 0);
  sqlite3_busy_timeout(raw, busy_ms);
  // No value vpnlab stores is near this (a row is a CSV line, an environment at most 4 MiB):
  // a larger one is refused by SQLite from its record header, before it is loaded (a 300 MB
  // row cost 1.85 GB before it was refused).
  sqlite3_limit(raw, SQLITE_LIMIT_LENGTH, kMaxHistoryValueBytes);
  return s;
}

Result<std::vector<Sqlite::Row>> Sqlite::query(const std::string& sql, const std::vector<SqlValue>& values) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr);
  SqliteStmt stmt(raw);
  if (rc != SQLITE_OK) return failure("cannot prepare '" + sql.substr(0, 60) + "'", rc);
  for (size_t i = 0; i < values.size(); ++i) {
    const int at = static_cast<int>(i) + 1;
    const SqlValue& v = values[i];
    if (std::holds_alternative<std::string>(v)) {
      const auto& t = std::get<std::string>(v);
      rc = sqlite3_bind_text(raw, at, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
    } else if (std::holds_alternative<int64_t>(v)) {
      rc = sqlite3_bind_int64(raw, at, std::get<int64_t>(v));
    } else if (std::holds_alternative<double>(v)) {
      rc = sqlite3_bind_double(raw, at, std::get<double>(v));
    } else {
      rc = sqlite3_bind_null(raw, at);
    }
    if (rc != SQLITE_OK) return failure("cannot bind value " + std::to_string(at), rc);
  }
  std::vector<Row> rows;
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
    Row row;
    for (int c = 0; c < sqlite3_column_count(raw); ++c) {
      const unsigned char* text = sqlite3_column_text(raw, c);
      if (text)
        row.emplace_back(
            std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(raw, c))));
      else
        row.emplace_back(std::nullopt);
    }
    rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return failure("'" + sql.substr(0, 60) + "'", rc);
  return rows;
}

Status Sqlite::run(const std::string& sql, const std::vector<SqlValue>& values) {
  auto r = query(sql, values);
  if (!r) return r.error();
  return ok_status();
}

Status Sqlite::exec(const std::string& sql) {
  char* msg = nullptr;
  int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &msg);
  if (msg) sqlite3_free(msg);
  if (rc != SQLITE_OK) return failure("'" + sql.substr(0, 60) + "'", rc);
  return ok_status();
}

}  // namespace vpnlab
