// The history file (lab/history): created with its schema, a run added whole and once, and
// a file that is not a vpnlab history (or of a newer schema) refused and left as it was.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "../temp_paths.h"
#include "lab/base/fs_util.h"
#include "lab/history/history_store.h"

using namespace vpnlab;


namespace {

// A run directory of two rounds (baseline, wireguard-go), as a run left it.
const std::string kRun = VPNLAB_TEST_DATA "/run-golden";

std::string file_bytes(const std::string& path) { return read_file_text(path); }

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
  // Reopened: schema 1, the same run.
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
  EXPECT_NE(added.error().message.find("results.csv: a row of run '20261130-095910-zzzz' in run '20261130-095910-d829'"), std::string::npos)
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
  EXPECT_EQ(newer.error().message, dir + "/newer.sqlite: history schema 7 is newer than this vpnlab's (1)");
  // A symlink is not followed (it could point anywhere).
  std::filesystem::create_symlink(dir + "/newer.sqlite", dir + "/link.sqlite");
  EXPECT_FALSE(HistoryStore::open(dir + "/link.sqlite").ok());
}
