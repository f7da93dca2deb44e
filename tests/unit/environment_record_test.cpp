// environment.json has one writer, which holds the document: what one part of a run learnt
// is not lost when another part records something, and a resumed run adds to its first
// session's record only after reading it through the run directory's door.
#include "lab/run/environment_record.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "lab/base/fs_util.h"

namespace vpnlab {
namespace {

struct TempRun {
  std::string dir;
  TempRun() {
    char tmpl[] = "/tmp/vpnlab-envrec-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~TempRun() { std::filesystem::remove_all(dir); }
  nlohmann::json on_disk() const { return nlohmann::json::parse(read_file_text(dir + "/environment.json")); }
};

TEST(EnvironmentRecord, EverythingLearntStaysInTheOneDocument) {
  TempRun run;
  auto record = EnvironmentRecord::create(run.dir, {{"run_id", "r1"}, {"schema", 1}});
  ASSERT_TRUE(record.ok()) << record.error().format();
  EXPECT_EQ(run.on_disk()["run_id"], "r1");  // written at once: a run killed now has its provenance
  ASSERT_TRUE(record->set({{"accel", "tcg"}}).ok());
  ASSERT_TRUE(record->set_entry("interface_offloads", "wireguard-go", {{"a", "gso on"}}).ok());
  ASSERT_TRUE(record->set_entry("interface_offloads", "nebula", {{"a", "gso off"}}).ok());
  nlohmann::json kept;
  ASSERT_TRUE(record->set_entry_once("achieved_paths", "wan", {{"sent", 500}}, &kept).ok());
  ASSERT_TRUE(record->set({{"timings", {{"measuring", 12.5}}}}).ok());
  const nlohmann::json disk = run.on_disk();
  EXPECT_EQ(disk, record->document());
  EXPECT_EQ(disk["run_id"], "r1");
  EXPECT_EQ(disk["accel"], "tcg");
  EXPECT_EQ(disk["interface_offloads"].size(), 2u);
  EXPECT_EQ(disk["achieved_paths"]["wan"]["sent"], 500);
  EXPECT_EQ(disk["timings"]["measuring"], 12.5);
}

// A file changed behind the run's back is not re-read mid-run: the run's own document wins,
// and the file is whole JSON after every write.
TEST(EnvironmentRecord, TheRunsDocumentIsWrittenWholeNotMergedWithTheFile) {
  TempRun run;
  auto record = EnvironmentRecord::create(run.dir, {{"run_id", "r1"}});
  ASSERT_TRUE(record.ok());
  ASSERT_TRUE(write_file(run.dir + "/environment.json", "{\"run_id\": \"tampered\", \"extra\": 1", 0640).ok());
  ASSERT_TRUE(record->set({{"sampling", {{"stopped", "precision"}}}}).ok());
  const nlohmann::json disk = run.on_disk();
  EXPECT_EQ(disk["run_id"], "r1");
  EXPECT_FALSE(disk.contains("extra"));
  EXPECT_EQ(disk["sampling"]["stopped"], "precision");
}

TEST(EnvironmentRecord, AValueThatIsNotUtf8IsKeptReplacedNotThrown) {
  TempRun run;
  auto record = EnvironmentRecord::create(run.dir, {{"run_id", "r1"}});
  ASSERT_TRUE(record.ok());
  ASSERT_TRUE(record->set_entry("versions", "odd", std::string("v1\xff\xfe")).ok());
  EXPECT_EQ(run.on_disk()["versions"]["odd"], "v1\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(EnvironmentRecord, AResumedRecordIsReadThroughTheRunDirectorysDoor) {
  TempRun run;
  const std::string path = run.dir + "/environment.json";
  auto missing = EnvironmentRecord::reopen(run.dir);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, path + ": missing: the first session's record is needed to resume");

  ASSERT_TRUE(write_file(path, "[1, 2", 0640).ok());
  auto torn = EnvironmentRecord::reopen(run.dir);
  ASSERT_FALSE(torn.ok());
  EXPECT_EQ(torn.error().message.rfind(path + ": ", 0), 0u) << torn.error().message;
  EXPECT_NE(torn.error().message.find("cannot be added to"), std::string::npos) << torn.error().message;

  ASSERT_TRUE(write_file(path, std::string(5000, '[') + std::string(5000, ']'), 0640).ok());
  EXPECT_FALSE(EnvironmentRecord::reopen(run.dir).ok());  // deep: refused, not a stack overflow

  ASSERT_TRUE(write_file(path, "[1]", 0640).ok());
  EXPECT_FALSE(EnvironmentRecord::reopen(run.dir).ok());  // JSON, but not a record

  std::filesystem::remove(path);
  ASSERT_TRUE(write_file(run.dir + "/elsewhere.json", "{\"run_id\": \"r1\"}", 0640).ok());
  ASSERT_EQ(symlink((run.dir + "/elsewhere.json").c_str(), path.c_str()), 0);
  auto linked = EnvironmentRecord::reopen(run.dir);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().message.find("is a symbolic link"), std::string::npos) << linked.error().message;

  std::filesystem::remove(path);
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_FALSE(EnvironmentRecord::reopen(run.dir).ok());  // a FIFO: refused, never blocks

  std::filesystem::remove(path);
  ASSERT_TRUE(write_file(path, "{\"run_id\": \"r1\", \"achieved_paths\": {\"wan\": {\"sent\": 500}}}", 0640).ok());
  auto first = EnvironmentRecord::reopen(run.dir);
  ASSERT_TRUE(first.ok()) << first.error().format();
  nlohmann::json kept;
  ASSERT_TRUE(first->set_entry_once("achieved_paths", "wan", {{"sent", 9}}, &kept).ok());
  EXPECT_EQ(kept["sent"], 500);
  ASSERT_TRUE(first->set({{"timings", {{"measuring", 3}}}}).ok());
  EXPECT_EQ(run.on_disk()["achieved_paths"]["wan"]["sent"], 500);
  EXPECT_EQ(run.on_disk()["run_id"], "r1");
}

}  // namespace
}  // namespace vpnlab
