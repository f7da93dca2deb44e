// The history file (lab/history): created with its schema, a run added whole and once, and
// a file that is not a vpnlab history (or of a newer schema) refused and left as it was.
#include <gtest/gtest.h>

#include <functional>

#include <sqlite3.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "../temp_paths.h"
#include "lab/base/fs_util.h"
#include "lab/history/history_jsonl.h"
#include "lab/history/history_store.h"

using namespace vpnlab;

namespace {

// A run directory of two rounds (baseline, wireguard-go), as a run left it.
const std::string kRun = VPNLAB_TEST_DATA "/run-golden";

std::string file_bytes(const std::string& path) { return read_file_text(path); }

// Every run of the history, read back as vpnlab reads it.
Result<std::vector<RunRecord>> all_runs(HistoryStore& store) {
  std::vector<RunRecord> out;
  auto s = store.for_each_run("", [&](const RunRecord& r) {
    out.push_back(r);
    return ok_status();
  });
  if (!s) return s.error();
  return out;
}

}  // namespace

TEST(History, ARunIsAddedWholeAndOnceAndListed) {
  const std::string path = make_temp_dir("history") + "/deep/history.sqlite";
  auto store = HistoryStore::open(path);
  ASSERT_TRUE(store.ok()) << store.error().format();
  auto added = store->add_run(kRun);
  ASSERT_TRUE(added.ok()) << added.error().format();
  EXPECT_TRUE(*added);
  auto again = store->add_run(kRun);
  ASSERT_TRUE(again.ok()) << again.error().format();
  EXPECT_FALSE(*again) << "the same run id adds nothing";
  auto runs = store->runs();
  ASSERT_TRUE(runs.ok()) << runs.error().format();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().run_id, "20261130-095910-d829");
  EXPECT_EQ(runs->front().rows, 4);
  EXPECT_EQ(runs->front().products, "baseline, wireguard-go");
  // Reopened: the same run.
  auto reopened = HistoryStore::open(path);
  ASSERT_TRUE(reopened.ok()) << reopened.error().format();
  EXPECT_EQ(reopened->runs()->size(), 1u);
}

TEST(History, ARunDirectoryThatCannotBeReadAddsNothing) {
  const std::string dir = make_temp_dir("history");
  auto store = HistoryStore::open(dir + "/h.sqlite");
  ASSERT_TRUE(store.ok());
  // A results.csv whose row belongs to another run: refused, the history unchanged.
  const std::string run = dir + "/run";
  std::filesystem::copy(kRun, run, std::filesystem::copy_options::recursive);
  std::string csv = file_bytes(run + "/results.csv");
  csv.replace(csv.rfind("20261130-095910-d829"), 20, "20261130-095910-zzzz");
  std::ofstream(run + "/results.csv", std::ios::trunc) << csv;
  auto added = store->add_run(run);
  ASSERT_FALSE(added.ok());
  EXPECT_NE(
      added.error().message.find("results.csv: a row of run '20261130-095910-zzzz' in run '20261130-095910-d829'"),
      std::string::npos)
      << added.error().message;
  EXPECT_TRUE(store->runs()->empty());
}

TEST(History, AFileThatIsNotAVpnlabHistoryIsRefusedAndLeftAsItWas) {
  const std::string dir = make_temp_dir("history");
  // Not SQLite at all.
  std::ofstream(dir + "/notes.txt") << "my notes, not a database\n" << std::string(4096, 'x');
  const std::string before = file_bytes(dir + "/notes.txt");
  auto text = HistoryStore::open(dir + "/notes.txt");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find(dir + "/notes.txt: "), std::string::npos) << text.error().message;
  EXPECT_NE(text.error().hint.find("never overwritten"), std::string::npos) << text.error().hint;
  EXPECT_EQ(file_bytes(dir + "/notes.txt"), before);
  // Another program's SQLite file.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open((dir + "/other.db").c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto other = HistoryStore::open(dir + "/other.db");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().message, dir + "/other.db: not a vpnlab history (an SQLite file of another program)");
  // A vpnlab history of a newer schema.
  auto made = HistoryStore::open(dir + "/newer.sqlite");
  ASSERT_TRUE(made.ok());
  ASSERT_EQ(sqlite3_open((dir + "/newer.sqlite").c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version = 7;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto newer = HistoryStore::open(dir + "/newer.sqlite");
  ASSERT_FALSE(newer.ok());
  EXPECT_EQ(newer.error().message, dir + "/newer.sqlite: history schema 7 is newer than this vpnlab's (2)");
  // A symlink is not followed (it could point anywhere).
  std::filesystem::create_symlink(dir + "/newer.sqlite", dir + "/link.sqlite");
  EXPECT_FALSE(HistoryStore::open(dir + "/link.sqlite").ok());
}

namespace {

// The names in `dir`, sorted: what a read may have left beside a history.
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A history at `path` holding kRun, closed again.
void write_history_of_one_run(const std::string& path) {
  auto store = HistoryStore::open(path);
  ASSERT_TRUE(store.ok()) << store.error().format();
  ASSERT_TRUE(store->add_run(kRun).ok());
}

// Opens the history at `path` read-only, reads its one run, and calls `while_open` before
// closing it.
void read_its_one_run(
    const std::string& path, const std::function<void()>& while_open = [] {}) {
  auto store = HistoryStore::open(path, HistoryAccess::read_only);
  ASSERT_TRUE(store.ok()) << store.error().format();
  auto runs = store->runs();
  ASSERT_TRUE(runs.ok()) << runs.error().format();
  EXPECT_EQ(runs->size(), 1u);
  while_open();
}

int64_t pragma(const std::string& path, const char* name) {
  sqlite3* raw = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(raw, (std::string("PRAGMA ") + name).c_str(), -1, &st, nullptr), SQLITE_OK);
  int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(raw);
  return v;
}

}  // namespace

TEST(History, AFileOfSchemaOneIsMigratedAndItsRowsReadBack) {
  // tests/data/history-v1.sql: a schema-1 file holding run-golden, as that version wrote it.
  const std::string path = make_temp_dir("history") + "/v1.sqlite";
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, read_file_text(VPNLAB_TEST_DATA "/history-v1.sql").c_str(), nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  ASSERT_EQ(pragma(path, "user_version"), 1);
  auto store = HistoryStore::open(path);
  ASSERT_TRUE(store.ok()) << store.error().format();
  EXPECT_EQ(pragma(path, "user_version"), kHistorySchema);
  auto runs = all_runs(*store);
  ASSERT_TRUE(runs.ok()) << runs.error().format();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().run_id, "20261130-095910-d829");
  EXPECT_EQ(runs->front().source, "schema 1");
  ASSERT_EQ(runs->front().rows.size(), 4u);
  auto direct = read_run_directory(kRun);
  ASSERT_TRUE(direct.ok()) << direct.error().format();
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(format_row(runs->front().rows[i]), format_row(direct->rows[i])) << "row " << i;
  // And it takes runs as a schema-2 file does.
  auto more = HistoryStore::open(path);
  ASSERT_TRUE(more.ok());
  auto added = more->add_run(kRun);
  ASSERT_TRUE(added.ok());
  EXPECT_FALSE(*added);
}

TEST(History, AnExportImportsIntoAnotherHistoryByRunId) {
  const std::string dir = make_temp_dir("history");
  auto a = HistoryStore::open(dir + "/a.sqlite");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(a->add_run(kRun).ok());
  std::ostringstream out;
  auto n = export_jsonl(*a, out);
  ASSERT_TRUE(n.ok()) << n.error().format();
  EXPECT_EQ(*n, 1u);
  std::ofstream(dir + "/export.jsonl") << out.str();
  auto b = HistoryStore::open(dir + "/b.sqlite");
  ASSERT_TRUE(b.ok());
  auto first = import_jsonl(*b, dir + "/export.jsonl");
  ASSERT_TRUE(first.ok()) << first.error().format();
  EXPECT_EQ(first->added, 1u);
  auto second = import_jsonl(*b, dir + "/export.jsonl");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->added, 0u);
  EXPECT_EQ(second->present, 1u);
  auto runs = all_runs(*b);
  ASSERT_TRUE(runs.ok()) << runs.error().format();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().rows.size(), 4u);
  EXPECT_EQ(runs->front().source, "import " + dir + "/export.jsonl (import " + kRun + ")");
}

TEST(History, ATamperedOrHostileExportIsRefusedWithItsLine) {
  const std::string dir = make_temp_dir("history");
  auto a = HistoryStore::open(dir + "/a.sqlite");
  ASSERT_TRUE(a.ok());
  auto run = read_run_directory(kRun);
  ASSERT_TRUE(run.ok());
  const std::string good = export_line(*run);
  auto refused = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    auto b = HistoryStore::open(dir + "/" + name + ".sqlite");
    EXPECT_TRUE(b.ok());
    auto r = import_jsonl(*b, dir + "/" + name);
    EXPECT_FALSE(r.ok()) << name;
    EXPECT_TRUE(b->runs()->empty()) << name << ": nothing of a refused line is kept";
    return r.ok() ? std::string() : r.error().message;
  };
  // A row with a negative figure (the results.csv checks), on line 2.
  std::string bad = good;
  bad.replace(bad.find(",0.275625,"), 10, ",-0.275625,");
  EXPECT_NE(refused("neg.jsonl", "\n" + bad + "\n").find(dir + "/neg.jsonl:2: results_csv:"), std::string::npos);
  // An environment field of the wrong type.
  nlohmann::json j = nlohmann::json::parse(good);
  j["environment"]["overlay"]["mtu"] = "1400; rm -rf /";
  EXPECT_NE(refused("env.jsonl", j.dump() + "\n").find(dir + "/env.jsonl:1: environment"), std::string::npos);
  // A newer export format.
  j = nlohmann::json::parse(good);
  j["version"] = 9;
  EXPECT_EQ(refused("newer.jsonl", j.dump() + "\n"),
            dir + "/newer.jsonl:1: export format version 9 is not one this vpnlab reads (1)");
  // Not JSON; and a line longer than any run can be, refused before it is held whole.
  EXPECT_EQ(refused("text.jsonl", "hello\n"), dir + "/text.jsonl:1: not a JSON object");
  {
    std::ofstream big(dir + "/big.jsonl");
    const std::string chunk(1 << 20, 'x');
    for (uint64_t i = 0; i <= (kMaxExportLineBytes >> 20); ++i) big << chunk;
  }
  auto b = HistoryStore::open(dir + "/big.sqlite");
  ASSERT_TRUE(b.ok());
  auto big = import_jsonl(*b, dir + "/big.jsonl");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find(dir + "/big.jsonl:1: a line longer than 36 MiB"), std::string::npos)
      << big.error().message;
  // A FIFO (endless) is refused by its type, without blocking.
  ASSERT_EQ(mkfifo((dir + "/fifo.jsonl").c_str(), 0600), 0);
  auto fifo = import_jsonl(*b, dir + "/fifo.jsonl");
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(fifo.error().message, dir + "/fifo.jsonl: not a regular file");
}

// The hostile review: a run's own rows plus 37 forged samples were "extended by 37 rows (a run
// resumed since)", and its figure went from 0.28 to 8.3 Gbit/s. A run holds at most the
// samples its environment declares; a line names its own run once; a run id is a plain name.
TEST(History, RowsBeyondTheDeclaredSamplesOrAForeignIdAreRefused) {
  const std::string dir = make_temp_dir("history");
  auto run = read_run_directory(kRun);
  ASSERT_TRUE(run.ok()) << run.error().format();
  auto store = HistoryStore::open(dir + "/h.sqlite");
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store->add(*run).ok());
  const int declared = run->environment["bench"]["samples"].get<int>();
  RunRecord forged = *run;
  for (int i = 1; i <= 37; ++i) {
    SampleRow extra = run->rows.front();
    extra.sample = declared + i;
    extra.gbps = 9.9;
    forged.rows.push_back(extra);
  }
  std::ofstream(dir + "/forged.jsonl") << export_line(forged) << "\n";
  auto imported = import_jsonl(*store, dir + "/forged.jsonl");
  ASSERT_FALSE(imported.ok());
  const SampleRow& first = run->rows.front();
  EXPECT_EQ(imported.error().message, dir + "/forged.jsonl:1: a row of " + first.product + ", " + first.test +
                                          " is sample " + std::to_string(declared + 1) + ", but the run declares " +
                                          std::to_string(declared) + " samples (bench.samples)");
  auto direct = store->add(forged);
  ASSERT_FALSE(direct.ok()) << "the store itself holds the rule, whoever calls it";
  EXPECT_EQ(store->runs()->front().rows, static_cast<int64_t>(run->rows.size()));

  nlohmann::json line = nlohmann::json::parse(export_line(*run));
  line["run_id"] = "20261206-000000-beef";
  std::ofstream(dir + "/other-id.jsonl") << line.dump() << "\n";
  auto other = import_jsonl(*store, dir + "/other-id.jsonl");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().message, dir + "/other-id.jsonl:1: field 'run_id' is not the environment's run_id");

  RunRecord empty = *run;
  empty.rows.clear();
  empty.run_id = "../../etc";
  empty.environment["run_id"] = empty.run_id;
  std::ofstream(dir + "/no-rows.jsonl") << export_line(empty) << "\n";
  auto no_rows = import_jsonl(*store, dir + "/no-rows.jsonl");
  ASSERT_FALSE(no_rows.ok());
  EXPECT_EQ(no_rows.error().message, dir + "/no-rows.jsonl:1: run_id '../../etc' is not a run id");
}

// A user reads root's history read-only: it opens (before: "attempt to write a readonly
// database" on a WAL file), and nothing is left beside the file (before: the reader's own
// -wal and -shm where it could write the directory).
TEST(History, AnotherUsersHistoryIsReadWithoutWritingBesideIt) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to read as another user";
  const std::string dir = make_temp_dir("history-ro");
  chmod(dir.c_str(), 0755);
  const std::string path = dir + "/h.sqlite";
  ASSERT_NO_FATAL_FAILURE(write_history_of_one_run(path));
  auto files = [&] { return names_in(dir); };
  const auto before = files();
  pid_t pid = fork();
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(100);
    auto store = HistoryStore::open(path, HistoryAccess::read_only);
    if (!store) _exit(101);
    auto runs = store->runs();
    _exit(runs && runs->size() == 1 ? 0 : 102);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "101: the open failed, 102: the runs were not read";
  EXPECT_EQ(files(), before);
  // Root reading a file another user owns, in a directory root can write: nothing beside it.
  ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
  ASSERT_NO_FATAL_FAILURE(read_its_one_run(path, [&] { EXPECT_EQ(files(), before); }));
}

// The owner reads its own history (history, diff's between-run spread): nothing is left
// beside the file either (before: SQLite's -wal and -shm of a read-only reader stayed there,
// since only a connection that may write removes them when it closes).
TEST(History, ItsOwnersReadLeavesNothingBesideIt) {
  const std::string dir = make_temp_dir("history-own");
  const std::string path = dir + "/h.sqlite";
  ASSERT_NO_FATAL_FAILURE(write_history_of_one_run(path));
  auto files = [&] { return names_in(dir); };
  const auto before = files();
  const std::string bytes = file_bytes(path);
  ASSERT_NO_FATAL_FAILURE(read_its_one_run(path));
  EXPECT_EQ(files(), before);
  EXPECT_EQ(file_bytes(path), bytes) << "read, not written";
  std::filesystem::remove_all(dir);
}

TEST(History, ARunResumedSinceReplacesItsEntry) {
  const std::string dir = make_temp_dir("history");
  auto store = HistoryStore::open(dir + "/h.sqlite");
  ASSERT_TRUE(store.ok());
  auto full = read_run_directory(kRun);
  ASSERT_TRUE(full.ok());
  RunRecord cut = *full;
  cut.rows.pop_back();  // the run as it was when interrupted
  auto first = store->add(cut);
  ASSERT_TRUE(first.ok() && *first);
  EXPECT_EQ(store->runs()->front().rows, 3);
  auto resumed = store->add(*full);
  ASSERT_TRUE(resumed.ok()) << resumed.error().format();
  EXPECT_TRUE(*resumed);
  EXPECT_EQ(store->runs()->size(), 1u);
  EXPECT_EQ(store->runs()->front().rows, 4);
  auto again = store->add(cut);
  EXPECT_TRUE(again.ok() && !*again) << "fewer rows never replace more";
  EXPECT_EQ(store->runs()->front().rows, 4);
}

// The hostile review: importing a run whose id was there already replaced its rows and said
// "added". The history is append-only: other rows under that id are refused, naming the
// first difference; --replace replaces them and says what changed; the same rows are
// "already there".
TEST(History, ARunIdThereAlreadyWithOtherRowsIsRefusedUnlessReplaced) {
  const std::string dir = make_temp_dir("history");
  auto store = HistoryStore::open(dir + "/h.sqlite");
  ASSERT_TRUE(store.ok());
  auto full = read_run_directory(kRun);
  ASSERT_TRUE(full.ok());
  ASSERT_TRUE(store->add(*full).ok());
  RunRecord forged = *full;
  forged.rows[1].gbps *= 2;
  std::string said;
  auto refused = store->add(forged, /*replace=*/false, &said);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "run 20261130-095910-d829 is in the history already with other rows: row 2 (" +
                                         forged.rows[1].product + ", " + forged.rows[1].test + ", sample " +
                                         std::to_string(forged.rows[1].sample) + ") differs");
  EXPECT_NE(refused.error().hint.find("append-only: give --replace"), std::string::npos);
  auto kept = all_runs(*store);
  ASSERT_TRUE(kept.ok());
  EXPECT_DOUBLE_EQ(kept->front().rows[1].gbps, full->rows[1].gbps) << "nothing changed";
  auto same = store->add(*full, false, &said);
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(*same);
  EXPECT_EQ(said, "already in the history");
  auto replaced = store->add(forged, /*replace=*/true, &said);
  ASSERT_TRUE(replaced.ok()) << replaced.error().format();
  EXPECT_TRUE(*replaced);
  EXPECT_EQ(said.rfind("replaced: 4 row(s) kept until now, 4 now; first difference at row 2 (", 0), 0u) << said;
  EXPECT_DOUBLE_EQ(all_runs(*store)->front().rows[1].gbps, forged.rows[1].gbps);
}

// The hostile review: `--history /dev/null` left a journal of mode 0666 in /dev; a file
// with user_version -1 was read before the migration table; any file with the right
// application id was trusted (a view spun `history` at 100 % CPU). Now a non-regular file
// is refused before SQLite opens it, and the tables, columns and indexes must be vpnlab's,
// with no view or trigger.
TEST(History, AFileIsTrustedOnlyWithVpnlabsOwnSchema) {
  auto null = HistoryStore::open("/dev/null");
  ASSERT_FALSE(null.ok());
  EXPECT_EQ(null.error().message, "/dev/null: not a regular file (a character device): not a vpnlab history");
  const std::string dir = make_temp_dir("history");
  auto made = [&](const std::string& name, const std::string& sql) {
    const std::string path = dir + "/" + name;
    {
      auto store = HistoryStore::open(path);
      EXPECT_TRUE(store.ok());
    }
    sqlite3* raw = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
    sqlite3_close(raw);
    return path;
  };
  auto message = [](const std::string& path, HistoryAccess access) {
    auto s = HistoryStore::open(path, access);
    return s.ok() ? std::string() : s.error().message;
  };
  const std::string view =
      made("view.sqlite",
           "CREATE VIEW spin AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c;");
  EXPECT_EQ(message(view, HistoryAccess::read_write),
            view + ": it has a view 'spin' vpnlab never makes: not a history vpnlab wrote");
  EXPECT_EQ(message(view, HistoryAccess::read_only),
            view + ": it has a view 'spin' vpnlab never makes: not a history vpnlab wrote");
  const std::string trigger =
      made("trigger.sqlite", "CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM samples; END;");
  EXPECT_EQ(message(trigger, HistoryAccess::read_write),
            trigger + ": it has a trigger 't' vpnlab never makes: not a history vpnlab wrote");
  const std::string column = made("column.sqlite", "ALTER TABLE samples ADD COLUMN extra TEXT;");
  EXPECT_EQ(message(column, HistoryAccess::read_write),
            column + ": table 'samples' has other columns than vpnlab's: not a history vpnlab wrote");
  const std::string minus = made("minus.sqlite", "PRAGMA user_version = -1;");
  EXPECT_EQ(message(minus, HistoryAccess::read_write), minus + ": history schema -1 is not one vpnlab wrote");
  // A read-only open of a good history reads it and writes nothing into it.
  const std::string good = dir + "/good.sqlite";
  {
    auto store = HistoryStore::open(good);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store->add_run(kRun).ok());
  }
  const std::string before = file_bytes(good);
  auto reader = HistoryStore::open(good, HistoryAccess::read_only);
  ASSERT_TRUE(reader.ok()) << reader.error().format();
  EXPECT_EQ(reader->runs()->size(), 1u);
  auto forged = read_run_directory(kRun);
  ASSERT_TRUE(forged.ok());
  forged->rows[0].gbps *= 2;
  EXPECT_FALSE(reader->add(*forged, /*replace=*/true).ok()) << "a read-only history takes nothing";
  EXPECT_EQ(file_bytes(good), before);
  EXPECT_EQ(message(dir + "/absent.sqlite", HistoryAccess::read_only), dir + "/absent.sqlite: no history there yet");
  EXPECT_FALSE(std::filesystem::exists(dir + "/absent.sqlite"));
}

TEST(History, VpnlabsAppendingAtOnceToANewFileAllLand) {
  // Eight first runs at once into a history none has made yet: each waits its turn; none is
  // refused as "not a history" or fails a migration another already made.
  const std::string path = make_temp_dir("history") + "/h.sqlite";
  auto run = read_run_directory(kRun);
  ASSERT_TRUE(run.ok());
  std::vector<std::thread> writers;
  std::vector<std::string> errors(8);
  for (int i = 0; i < 8; ++i)
    writers.emplace_back([&, i] {
      RunRecord r = *run;
      r.run_id += "-" + std::to_string(i);
      for (auto& row : r.rows) row.run_id = r.run_id;
      auto store = HistoryStore::open(path);
      if (!store) return void(errors[i] = store.error().message);
      auto added = store->add(r);
      if (!added) errors[i] = added.error().message;
    });
  for (auto& w : writers) w.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  auto store = HistoryStore::open(path);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(store->runs()->size(), 8u);
}
