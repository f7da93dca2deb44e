#include "lab/history/history_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "lab/base/fault.h"
#include "lab/base/fs_util.h"
#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"
#include "lab/base/terminal_text.h"
#include "lab/base/utc_time.h"
#include "lab/record/results_csv.h"
#include "lab/results/run_files.h"

namespace vpnlab {

namespace {

// The results.csv header of schema 1's time (frozen: migration 2 states it for those rows).
constexpr const char* kV1Header =
    "run_id,timestamp,product,test,pattern,direction,protocol,sample,client,server,streams,reverse,mss,duration_s,gbps,"
    "retransmits,valid,status,reason,cipher,bringup_s,cpu_s,cpu_user_s,cpu_sys_s,cpu_softirq_s,steal_s,cpu_s_per_gbit,"
    "processes,pps,loss_pct,generator_cpu_pct,daemon_rss_kb,daemon_threads,latency_p50_ms,latency_p99_ms,latency_"
    "probes,outside_load,softirq_by_cpu,wire_pps,cpu_by_host,kind,tps,tx_p50_ms,tx_p90_ms,tx_p99_ms,tx_p999_ms,payload_"
    "bytes,offered_bps,zero_loss_bps,hops";

// Schema version N is reached by migrations[N - 1]; the steps a file lacks run in the one transaction that sets
// user_version: a file is at its old version or the newest, never between.
const std::vector<std::string>& migrations() {
  static const std::vector<std::string> m = {
      // 1: runs with their provenance, the products each ran, and every results.csv row.
      "CREATE TABLE runs (run_id TEXT PRIMARY KEY, started TEXT NOT NULL, finished TEXT, vpnlab_version TEXT, "
      "  topology_file TEXT, topology_sha256 TEXT, backend TEXT, kernel TEXT, cpu_model TEXT, cpu_count INTEGER, "
      "  overlay_mtu INTEGER, pinned INTEGER, environment TEXT NOT NULL, added TEXT NOT NULL);"
      "CREATE TABLE products (run_id TEXT NOT NULL REFERENCES runs(run_id), product TEXT NOT NULL, version TEXT, "
      "origin TEXT, "
      "  cipher TEXT, PRIMARY KEY (run_id, product));"
      "CREATE TABLE samples (run_id TEXT NOT NULL REFERENCES runs(run_id), product TEXT NOT NULL, test TEXT NOT NULL, "
      "  sample INTEGER NOT NULL, valid INTEGER NOT NULL, status TEXT, reason TEXT, gbps REAL, cpu_s_per_gbit REAL, "
      "  daemon_rss_kb INTEGER, latency_p99_ms REAL, tps REAL, row TEXT NOT NULL, PRIMARY KEY (run_id, product, test, "
      "sample));"
      "CREATE INDEX samples_by_product ON samples (product, test);",
      // 2: each run keeps the results.csv header its rows were written under (a later
      // vpnlab adds columns: rows are read back by their own header), and how it came in
      // ("run", "import DIR", "import FILE.jsonl"). Schema-1 rows were written under the
      // header of that time, stated here as it was.
      std::string("ALTER TABLE runs ADD COLUMN csv_header TEXT;"
                  "ALTER TABLE runs ADD COLUMN source TEXT;"
                  "UPDATE runs SET csv_header = '") +
          kV1Header + "', source = 'schema 1';",
  };
  return m;
}

SqlValue text_at(const nlohmann::json& env, const char* pointer) {
  auto p = nlohmann::json::json_pointer(pointer);
  if (!env.contains(p) || !env.at(p).is_string()) return nullptr;
  return env.at(p).get<std::string>();
}

SqlValue integer_at(const nlohmann::json& env, const char* pointer) {
  auto p = nlohmann::json::json_pointer(pointer);
  if (!env.contains(p)) return nullptr;
  const auto& v = env.at(p);
  if (v.is_boolean()) return static_cast<int64_t>(v.get<bool>());
  if (auto n = whole_number<int64_t>(v); n && v.is_number_integer()) return *n;
  return nullptr;
}

Result<int64_t> pragma_number(Sqlite& db, const char* pragma) {
  auto r = db.query(std::string("PRAGMA ") + pragma);
  if (!r) return r.error();
  if (r->empty() || r->front().empty() || !r->front()[0]) return int64_t{0};
  return std::stoll(*r->front()[0]);
}

}  // namespace

std::string default_history_path() {
  if (const char* v = std::getenv("VPNLAB_HISTORY"); v && *v) return v;
  if (geteuid() == 0) return "/var/lib/vpnlab/history.sqlite";
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x == '/') return std::string(x) + "/vpnlab/history.sqlite";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/share/vpnlab/history.sqlite";
}

// Turning a file to WAL takes it exclusively, and SQLite answers SQLITE_BUSY at once there
// rather than call the busy handler (waiting could deadlock two connections): two vpnlabs
// opening a new history together had one fail (unit.History.VpnlabsAppendingAtOnce...,
// about 1 run in 20). So it is retried, with growing pauses, for up to the busy wait; no
// event says that a lock was released. A file already in WAL mode answers without a lock.
static Status set_wal(Sqlite& db) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (int pause_ms = 2;; pause_ms = std::min(pause_ms * 2, 100)) {
    Status s = db.exec("PRAGMA journal_mode=WAL");
    if (s || !db.last_failure_busy() || std::chrono::steady_clock::now() > deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
  }
}

Result<HistoryStore> HistoryStore::open(const std::string& path, HistoryAccess access) {
  const bool read_only = access == HistoryAccess::read_only;
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  // A device, FIFO or directory is refused before SQLite opens it: `--history /dev/null`
  // left a journal of mode 0666 in /dev.
  if (exists && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
    return make_error(path + ": not a regular file (" +
                          (S_ISDIR(st.st_mode)    ? "a directory"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                           : S_ISFIFO(st.st_mode) ? "a FIFO"
                                                  : "not a file") +
                          "): not a vpnlab history",
                      "give the path of a history file with --history PATH (a new one is made there)");
  if (!exists && read_only)
    return make_error(path + ": no history there yet",
                      "a finished 'vpnlab run' adds its run to it, or 'vpnlab history import RUN_DIR'");
  if (!exists) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    if (!dir.empty())
      if (auto s = make_dirs(dir, 0755); !s) return with_context(s.error(), "history " + path);
  }
  auto db = Sqlite::open(path, !exists, 30000, read_only);
  if (!db) return db.error();
  HistoryStore store(std::move(db.value()));
  if (auto s = store.check_kind(); !s) return s.error();
  if (read_only) {
    // Nothing is written: not the WAL mode, not a migration. A file of an older schema is
    // read once a verb that writes has migrated it.
    auto version = pragma_number(store.db_, "user_version");
    if (!version) return version.error();
    if (*version != kHistorySchema)
      return make_error(path + ": history schema " + std::to_string(*version) + ", this vpnlab reads " +
                            std::to_string(kHistorySchema),
                        "'vpnlab history import' or a finished run migrates it (it keeps every run)");
    if (auto s = store.check_schema(); !s) return s.error();
    return store;
  }
  // WAL: readers never block the one writer, and a writer killed mid-transaction leaves the
  // last committed state. Set only once the file is known to be a history (or empty): WAL
  // mode is written into the file's header.
  if (auto s = set_wal(store.db_); !s) return s.error();
  if (auto s = store.db_.exec("PRAGMA foreign_keys=ON"); !s) return s.error();
  if (auto s = store.migrate(); !s) return s.error();
  if (auto s = store.check_schema(); !s) return s.error();
  return store;
}

Status HistoryStore::check_schema() {
  // What this version makes from nothing, in memory: every table's columns, every index;
  // the file must have the same, and no view or trigger (a view spun `history` at 100 %
  // CPU; a trigger would run on every insert).
  auto fresh = Sqlite::open(":memory:", true);
  if (!fresh) return fresh.error();
  std::string sql;
  for (const auto& m : migrations()) sql += m;
  if (auto s = fresh->exec(sql); !s) return s;
  const std::string objects = "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name";
  auto want = fresh->query(objects);
  auto have = db_.query(objects);
  if (!want) return want.error();
  if (!have) return have.error();
  auto refuse = [&](const std::string& what) {
    return make_error(path() + ": " + what + ": not a history vpnlab wrote",
                      "give another path with --history PATH; this file is left as it is");
  };
  if (*have != *want) {
    for (const auto& row : *have)
      if (std::find(want->begin(), want->end(), row) == want->end())
        return refuse("it has a " + row[0].value_or("") + " '" + row[1].value_or("") + "' vpnlab never makes");
    return refuse("a table or index vpnlab makes is missing");
  }
  for (const auto& row : *want) {
    if (row[0] != std::string("table")) continue;
    const std::string info = "SELECT name, type FROM pragma_table_info(?) ORDER BY cid";
    auto want_cols = fresh->query(info, {*row[1]});
    auto have_cols = db_.query(info, {*row[1]});
    if (!want_cols) return want_cols.error();
    if (!have_cols) return have_cols.error();
    if (*want_cols != *have_cols) return refuse("table '" + *row[1] + "' has other columns than vpnlab's");
  }
  return ok_status();
}

Status HistoryStore::check_kind() {
  // One read transaction: the three answers are of one state of the file, never of a
  // second vpnlab's half-made history (two first runs at once).
  if (auto s = db_.exec("BEGIN"); !s) return s;
  auto app = pragma_number(db_, "application_id");
  auto version = app ? pragma_number(db_, "user_version") : Result<int64_t>(app.error());
  auto tables =
      version ? db_.query("SELECT count(*) FROM sqlite_master") : Result<std::vector<Sqlite::Row>>(version.error());
  (void)db_.exec("COMMIT");
  if (!tables) return tables.error();
  const bool empty = tables->front()[0] == std::string("0");
  if (!empty && *app != kHistoryApplicationId)
    return make_error(path() + ": not a vpnlab history (an SQLite file of another program)",
                      "give another path with --history PATH; this file is left as it is");
  if (*version < 0 || (!empty && *version == 0))
    return make_error(path() + ": history schema " + std::to_string(*version) + " is not one vpnlab wrote",
                      "give another path with --history PATH; the file is left as it is");
  if (*version > kHistorySchema)
    return make_error(path() + ": history schema " + std::to_string(*version) + " is newer than this vpnlab's (" +
                          std::to_string(kHistorySchema) + ")",
                      "use the vpnlab that wrote it, or a newer one; the file is left as it is");
  return ok_status();
}

Status HistoryStore::migrate() {
  // The version is read again under the write lock: another vpnlab may have migrated the
  // file since. All steps in one transaction: a file is at its old version or the newest.
  if (auto s = db_.exec("BEGIN IMMEDIATE"); !s) return s;
  auto version = pragma_number(db_, "user_version");
  if (!version) {
    (void)db_.exec("ROLLBACK");
    return version.error();
  }
  if (*version >= kHistorySchema) return db_.exec("COMMIT");
  std::string sql;
  for (int v = static_cast<int>(*version); v < kHistorySchema; ++v) sql += migrations()[static_cast<size_t>(v)];
  sql += "PRAGMA user_version = " + std::to_string(kHistorySchema) +
         "; PRAGMA application_id = " + std::to_string(kHistoryApplicationId) + ";";
  if (auto s = db_.exec(sql); !s) {
    (void)db_.exec("ROLLBACK");
    return with_context(s.error(), "migrating the history from schema " + std::to_string(*version) + " to " +
                                       std::to_string(kHistorySchema));
  }
  return db_.exec("COMMIT");
}

namespace {

Status check_run_record(const RunRecord& run, const std::string& where) {
  if (run.run_id.empty() || run.started.empty())
    return make_error(where + ": no run_id or started", "a run vpnlab wrote has both");
  // A run id names files and rows: one plain name, even for a run with no rows.
  if (run.run_id.size() > 64 ||
      run.run_id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos ||
      run.run_id.find_first_not_of('.') == std::string::npos)
    return make_error(where + ": run_id '" + terminal_safe(run.run_id.substr(0, 64)) + "' is not a run id",
                      "a run vpnlab wrote has an id like 20261206-043342-dfa9");
  // The samples its environment declares bound its rows: more is not a run resumed since, it
  // is rows the run never measured.
  const nlohmann::json* bench =
      run.environment.is_object() && run.environment.contains("bench") ? &run.environment["bench"] : nullptr;
  const int64_t declared = bench ? whole_number_or<int64_t>(*bench, "samples", -1) : -1;
  for (const auto& r : run.rows) {
    if (r.run_id != run.run_id)
      return make_error(where + ": a row of run '" + r.run_id + "' in run '" + run.run_id + "'",
                        "a run holds its own rows only");
    if (declared >= 0 && r.sample > declared)
      return make_error(where + ": a row of " + r.product + ", " + r.test + " is sample " + std::to_string(r.sample) +
                            ", but the run declares " + std::to_string(declared) + " samples (bench.samples)",
                        "a run holds the samples it measured only: import the run directory as it was written");
  }
  return ok_status();
}

}  // namespace

Result<RunRecord> run_record_from(const nlohmann::json& environment, std::vector<SampleRow> rows,
                                  const std::string& source, const std::string& where) {
  RunRecord run;
  run.run_id = environment.value("run_id", "");
  run.started = environment.contains("started") && environment["started"].is_string()
                    ? environment["started"].get<std::string>()
                    : "";
  run.source = source;
  run.environment = environment;
  run.rows = std::move(rows);
  if (auto s = check_run_record(run, where); !s) return s.error();
  return run;
}

Result<RunRecord> read_run_directory(const std::string& run_dir) {
  auto env = read_environment(run_dir, true);
  if (!env) return env.error();
  auto rows = read_results_csv(run_dir + "/results.csv");
  if (!rows) return rows.error();
  return run_record_from(*env, std::move(*rows), "import " + run_dir, run_dir + "/results.csv");
}

Result<bool> HistoryStore::add_run(const std::string& run_dir, const std::string& source, bool replace,
                                   std::string* said) {
  auto run = read_run_directory(run_dir);
  if (!run) return run.error();
  if (!source.empty()) run->source = source;
  return add(*run, replace, said);
}

Result<bool> HistoryStore::add(const RunRecord& run, bool replace, std::string* said) {
  std::string ignored;
  std::string& say = said ? *said : ignored;
  const std::string& run_id = run.run_id;
  if (auto s = check_run_record(run, "run " + terminal_safe(run_id.substr(0, 64))); !s) return s.error();
  if (auto s = db_.exec("BEGIN IMMEDIATE"); !s) return s.error();
  auto rollback = [&](Error e) -> Result<bool> {
    (void)db_.exec("ROLLBACK");
    return with_context(e, "adding run " + run_id + " to the history");
  };
  auto there = db_.query("SELECT 1 FROM runs WHERE run_id = ?", {run_id});
  if (!there) return rollback(there.error());
  say = "added";
  if (!there->empty()) {
    // The rows kept, read back as this version reads them (a file of an older schema stored
    // fewer columns), and the first row where the two differ, if any.
    auto header = db_.query("SELECT coalesce(csv_header, '') FROM runs WHERE run_id = ?", {run_id});
    if (!header) return rollback(header.error());
    auto kept = rows_of(run_id, header->front()[0].value_or(""), path() + ": run " + run_id);
    if (!kept) return rollback(kept.error());
    size_t same = 0;
    while (same < kept->size() && same < run.rows.size() && format_row((*kept)[same]) == format_row(run.rows[same]))
      ++same;
    if (same == run.rows.size()) {  // nothing new: the same rows, or more of them kept
      (void)db_.exec("ROLLBACK");
      say = same == kept->size() ? "already in the history"
                                 : "already in the history with more rows (" + std::to_string(kept->size()) + ")";
      return false;
    }
    if (same == kept->size()) {
      say = "extended by " + std::to_string(run.rows.size() - same) + " row(s) (a run resumed since)";
    } else {
      const SampleRow& r = run.rows[same];
      const std::string where = "row " + std::to_string(same + 1) + " (" + r.product + ", " + r.test + ", sample " +
                                std::to_string(r.sample) + ")";
      if (!replace) {
        (void)db_.exec("ROLLBACK");
        return make_error("run " + run_id + " is in the history already with other rows: " + where + " differs",
                          "the history is append-only: give --replace to replace that run, or import it into another "
                          "history (--history PATH)");
      }
      say = "replaced: " + std::to_string(kept->size()) + " row(s) kept until now, " + std::to_string(run.rows.size()) +
            " now; first difference at " + where;
    }
    for (const char* table : {"samples", "products", "runs"})
      if (auto s = db_.run(std::string("DELETE FROM ") + table + " WHERE run_id = ?", {run_id}); !s)
        return rollback(s.error());
  }
  const nlohmann::json& e = run.environment;
  if (auto s = db_.run(
          "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {run_id, run.started, text_at(e, "/finished"), text_at(e, "/vpnlab_version"), text_at(e, "/topology_file"),
           text_at(e, "/topology_sha256"), text_at(e, "/backend"), text_at(e, "/kernel/release"),
           text_at(e, "/cpu/model"), integer_at(e, "/cpu/count"), integer_at(e, "/overlay/mtu"),
           integer_at(e, "/bench/pinned"), e.dump(), utc_now(), results_csv_header_line(), run.source});
      !s)
    return rollback(s.error());
  if (e.contains("products") && e["products"].is_object())
    for (const auto& [name, p] : e["products"].items())
      if (auto s = db_.run("INSERT INTO products VALUES (?, ?, ?, ?, ?)",
                           {run_id, name, text_at(p, "/version"), text_at(p, "/origin"), text_at(p, "/cipher")});
          !s)
        return rollback(s.error());
  for (const auto& r : run.rows) {
    if (auto s =
            db_.run("INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    {run_id, r.product, r.test, static_cast<int64_t>(r.sample), static_cast<int64_t>(r.valid), r.status,
                     r.reason, r.gbps, r.cpu_s_per_gbit, r.daemon_rss_kb, r.latency_p99_ms, r.tps, format_row(r)});
        !s)
      return rollback(s.error());
    fault_point("history-row");  // a kill here is mid-transaction: the tests check nothing of it stays
  }
  if (auto s = db_.exec("COMMIT"); !s) return rollback(s.error());
  return true;
}

Result<std::vector<SampleRow>> HistoryStore::rows_of(const std::string& run_id, const std::string& csv_header,
                                                     const std::string& where) {
  auto lines = db_.query("SELECT row FROM samples WHERE run_id = ? ORDER BY rowid", {run_id});
  if (!lines) return lines.error();
  std::string text = csv_header + "\n";
  for (const auto& l : *lines) text += l[0].value_or("");  // each row ends with its newline
  return parse_results_csv(text, where + " results");
}

Status HistoryStore::for_each_run(const std::string& product, const std::function<Status(const RunRecord&)>& each) {
  // The runs first (a few hundred bytes each), then one run's rows at a time: memory is one
  // run's, however long the history.
  auto runs = db_.query(
      "SELECT run_id, started, coalesce(source, ''), environment, coalesce(csv_header, '') FROM runs r WHERE ? = '' OR "
      "EXISTS "
      "(SELECT 1 FROM samples s WHERE s.run_id = r.run_id AND (s.product = ? OR substr(s.product, 1, length(?) + 1) = "
      "? || '@')) "
      "ORDER BY started, run_id",
      {product, product, product, product});
  if (!runs) return runs.error();
  for (const auto& row : *runs) {
    const std::string run_id = row[0].value_or("");
    const std::string where = path() + ": run " + run_id;
    RunRecord run;
    run.run_id = run_id;
    run.started = row[1].value_or("");
    run.source = row[2].value_or("");
    if (auto why = json_nesting_problem(row[3].value_or("")); !why.empty())
      return make_error(where + " environment: " + why);
    run.environment = parse_json_bounded(row[3].value_or(""));
    if (auto s = check_environment(run.environment, where + " environment"); !s) return s;
    auto rows = rows_of(run_id, row[4].value_or(""), where);
    if (!rows) return rows.error();
    run.rows = std::move(*rows);
    if (auto s = check_run_record(run, where); !s) return s;
    if (auto s = each(run); !s) return s;
  }
  return ok_status();
}

Result<std::vector<HistoryRun>> HistoryStore::runs() {
  auto r = db_.query(
      "SELECT r.run_id, r.started, coalesce(r.topology_file, ''), coalesce(r.vpnlab_version, ''), "
      "  (SELECT group_concat(product, ', ') FROM (SELECT product FROM samples s WHERE s.run_id = r.run_id GROUP BY "
      "product ORDER BY min(s.rowid))), "
      "  (SELECT count(*) FROM samples s WHERE s.run_id = r.run_id), (SELECT count(*) FROM samples s WHERE s.run_id = "
      "r.run_id AND s.valid) "
      "FROM runs r ORDER BY r.started, r.run_id");
  if (!r) return r.error();
  std::vector<HistoryRun> out;
  for (const auto& row : *r)
    out.push_back(HistoryRun{row[0].value_or(""), row[1].value_or(""), row[2].value_or(""), row[3].value_or(""),
                             row[4].value_or(""), std::stoi(row[5].value_or("0")), std::stoi(row[6].value_or("0"))});
  return out;
}

}  // namespace vpnlab
