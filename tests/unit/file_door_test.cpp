// The one door for files (docs/trust.md): scratch space is private, a cache others can change
// is never run from nor deleted in, a removal never follows a link, a write never goes through
// a link or into a FIFO, and an earlier run's keys are copied, never used or written in place.
// Each case is a hole a hostile review found (issue 64); run as root, the ownership cases
// plant files owned by `nobody` too.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "../temp_paths.h"
#include "lab/app/product_build.h"
#include "lab/base/fs_util.h"
#include "lab/base/pidfd.h"
#include "lab/base/private_dir.h"
#include "lab/base/process.h"
#include "lab/base/trusted_dir.h"
#include "lab/model/product_spec.h"
#include "lab/run/keys.h"

namespace vpnlab {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A nebula@1.9.5 build in CACHE as `products build` leaves it (programs that only say hello).
void plant_nebula_build(const std::string& cache) {
  const std::string dir = cache + "/products/nebula/1.9.5";
  fs::create_directories(dir + "/bin");
  for (const char* bin : {"nebula", "nebula-cert"}) {
    std::ofstream(dir + "/bin/" + bin) << "#!/bin/sh\necho planted\n";
    chmod((dir + "/bin/" + bin).c_str(), 0755);
  }
  std::ofstream(dir + "/built")
      << registry_builds_named(VPNLAB_PRODUCTS_DIR, {"nebula@1.9.5"})->front().source.command() << " in 10 s\n";
  for (const auto& d : {cache, cache + "/products", cache + "/products/nebula", dir, dir + "/bin"})
    chmod(d.c_str(), 0755);
}

std::string not_built_with_cache(const std::string& cache) {
  setenv("VPNLAB_CACHE", cache.c_str(), 1);
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "nebula@1.9.5");
  unsetenv("VPNLAB_CACHE");
  return spec ? spec->not_built : "load failed: " + spec.error().format();
}

TEST(FileDoor, AVersionProbeWritesOnlyInsideAPrivateDirectory) {
  // The probe's stdout is its output file: the directory holding it is 0700 and this user's,
  // a fresh name, and gone afterwards (before, a guessable /tmp name an attacker could link).
  const std::string mode =
      first_output_line({"sh", "-c", "stat -c '%a %u' \"$(dirname \"$(readlink /proc/$$/fd/1)\")\""});
  EXPECT_EQ(mode, "700 " + std::to_string(geteuid()));
  const std::string out = first_output_line({"sh", "-c", "readlink /proc/self/fd/1"});
  const std::string prefix =
      std::string(kPrivateDirParent) + "/" + kVersionProbePrefix + std::to_string(getpid()) + "-";
  EXPECT_EQ(out.rfind(prefix, 0), 0u) << out;
  EXPECT_EQ(out.substr(out.size() - 4), "/out") << out;
  EXPECT_FALSE(fs::exists(fs::path(out).parent_path())) << "the private directory is removed: " << out;
  EXPECT_EQ(first_output_line({"sh", "-c", "echo; echo '  '; echo 'tool 1.2'"}), "tool 1.2");
}

TEST(FileDoor, AProductCacheOthersCanChangeIsNeverRunFrom) {
  const std::string cache = make_temp_dir("cache-trust") + "/cache";
  plant_nebula_build(cache);
  EXPECT_EQ(not_built_with_cache(cache), "") << "a cache only its owner can change is run from";

  chmod(cache.c_str(), 01777);
  EXPECT_EQ(not_built_with_cache(cache),
            "not trusted: " + cache + " is writable by others (mode 1777): vpnlab does not trust it");
  chmod(cache.c_str(), 0755);
  chmod((cache + "/products/nebula").c_str(), 0775);
  EXPECT_EQ(
      not_built_with_cache(cache),
      "not trusted: " + cache + "/products/nebula is writable by its group (mode 0775): vpnlab does not trust it");
  chmod((cache + "/products/nebula").c_str(), 0755);
  chmod((cache + "/products/nebula/1.9.5/bin/nebula").c_str(), 0757);
  EXPECT_EQ(not_built_with_cache(cache),
            "not trusted: " + cache +
                "/products/nebula/1.9.5/bin/nebula is writable by others (mode 0757): vpnlab does not trust it");
  chmod((cache + "/products/nebula/1.9.5/bin/nebula").c_str(), 0755);
  // A directory above the cache that others may write (not a root-owned sticky one like /tmp).
  const std::string parent = fs::path(cache).parent_path().string();
  chmod(parent.c_str(), 0777);
  EXPECT_EQ(not_built_with_cache(cache),
            "not trusted: " + parent + " is writable by others (mode 0777): vpnlab does not trust it");
  chmod(parent.c_str(), 0700);
  // A link inside the cache: the build it leads to is not the cache's.
  fs::rename(cache + "/products/nebula", cache + "/elsewhere");
  fs::create_directory_symlink(cache + "/elsewhere", cache + "/products/nebula");
  EXPECT_EQ(not_built_with_cache(cache), "not trusted: " + cache +
                                             "/products/nebula is a symbolic link (vpnlab follows no link below " +
                                             cache + "): vpnlab does not trust it");
  fs::remove(cache + "/products/nebula");
  fs::rename(cache + "/elsewhere", cache + "/products/nebula");
  EXPECT_EQ(not_built_with_cache(cache), "");
  // Root's run: a build planted by another user (nobody) is not run, whatever its modes.
  if (geteuid() == 0) {
    ASSERT_EQ(chown((cache + "/products/nebula/1.9.5/bin/nebula-cert").c_str(), 65534, 65534), 0);
    EXPECT_EQ(not_built_with_cache(cache), "not trusted: " + cache +
                                               "/products/nebula/1.9.5/bin/nebula-cert is owned by uid 65534, neither "
                                               "root nor you: vpnlab does not trust it");
    ASSERT_EQ(chown(cache.c_str(), 65534, 65534), 0);
    EXPECT_EQ(not_built_with_cache(cache),
              "not trusted: " + cache + " is owned by uid 65534, neither root nor you: vpnlab does not trust it");
  }
}

TEST(FileDoor, ABuildNeverDeletesThroughALinkInTheCache) {
  const std::string dir = make_temp_dir("cache-link");
  const std::string cache = dir + "/cache", outside = dir + "/outside";
  fs::create_directories(cache + "/products");
  fs::create_directories(outside + "/1.9.5");
  std::ofstream(outside + "/1.9.5/keep") << "canary\n";
  fs::create_directory_symlink(outside, cache + "/products/nebula");
  setenv("VPNLAB_CACHE", cache.c_str(), 1);
  std::ostringstream progress;
  auto s = make_registry_build(registry_builds_named(VPNLAB_PRODUCTS_DIR, {"nebula@1.9.5"})->front(), progress, -1);
  unsetenv("VPNLAB_CACHE");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "nebula@1.9.5: " + cache +
                                   "/products/nebula is a symbolic link (vpnlab follows no link below " + cache +
                                   "): vpnlab does not trust it");
  EXPECT_EQ(slurp(outside + "/1.9.5/keep"), "canary\n") << "nothing outside the cache is removed or rebuilt";
  EXPECT_EQ(progress.str(), "");
}

TEST(FileDoor, RemovingATreeRemovesLinksNeverWhatTheyPointAt) {
  const std::string dir = make_temp_dir("remove-tree");
  fs::create_directories(dir + "/tree/a/b");
  fs::create_directories(dir + "/outside");
  std::ofstream(dir + "/outside/keep") << "canary\n";
  fs::create_directory_symlink(dir + "/outside", dir + "/tree/a/b/link-to-dir");
  fs::create_symlink(dir + "/outside/keep", dir + "/tree/a/link-to-file");
  fs::create_directory_symlink(dir + "/outside", dir + "/top-link");
  ASSERT_TRUE(remove_tree(dir + "/tree").ok());
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir + "/tree")));
  ASSERT_TRUE(remove_tree(dir + "/top-link").ok());
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir + "/top-link"))) << "the link itself is removed";
  EXPECT_EQ(slurp(dir + "/outside/keep"), "canary\n");
  EXPECT_TRUE(remove_tree(dir + "/never-there").ok()) << "already gone is success";
}

TEST(FileDoor, AWriteGoesNeitherThroughALinkNorIntoAFifo) {
  const std::string dir = make_temp_dir("write-door");
  std::ofstream(dir + "/secret") << "root only\n";
  fs::create_symlink(dir + "/secret", dir + "/out.cmd");
  auto through = write_file(dir + "/out.cmd", "overwritten\n", 0640);
  ASSERT_FALSE(through.ok());
  EXPECT_EQ(through.error().message,
            "cannot write " + dir + "/out.cmd: it is a symbolic link, and vpnlab writes nothing through a link");
  EXPECT_EQ(slurp(dir + "/secret"), "root only\n");
  ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
  auto fifo = write_file(dir + "/fifo", "x", 0640);  // returns at once: nobody reads the FIFO
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(fifo.error().message.rfind("cannot write " + dir + "/fifo: ", 0), 0u) << fifo.error().message;
}

TEST(FileDoor, RunFromCopiesTheEarlierKeysAndNeverWritesThere) {
  const std::string dir = make_temp_dir("keys-from");
  const std::string from = dir + "/old/secrets/keys", to = dir + "/new/secrets/keys";
  fs::create_directories(dir + "/old/secrets");
  fs::create_directories(dir + "/new/secrets");
  auto made = prepare_node_keys(from, {"a", "b"});
  ASSERT_TRUE(made.ok()) << made.error().format();
  ASSERT_TRUE(prepare_run_psk(from).ok());
  chmod(from.c_str(), 0500);  // the earlier run is data: a write there would fail loudly
  ASSERT_TRUE(copy_run_keys(from, to, {"a", "b", "c"}).ok());
  auto copied = prepare_node_keys(to, {"a", "b", "c"});
  ASSERT_TRUE(copied.ok()) << copied.error().format();
  EXPECT_EQ((*copied)["a"].public_base64(), (*made)["a"].public_base64());
  EXPECT_EQ((*copied)["b"].public_base64(), (*made)["b"].public_base64());
  EXPECT_EQ(slurp(to + "/psk"), slurp(from + "/psk"));
  EXPECT_EQ(fs::status(to).permissions(), fs::perms::owner_all);
  chmod(from.c_str(), 0700);

  // A link in the earlier run's keys: refused by name, nothing read through it.
  fs::remove(from + "/b.key");
  fs::create_symlink(dir + "/elsewhere", from + "/b.key");
  auto linked = copy_run_keys(from, dir + "/other", {"a", "b"});
  ASSERT_FALSE(linked.ok());
  EXPECT_EQ(linked.error().message,
            from + "/b.key is a symbolic link: vpnlab reads a run's own files, never through a link");
  // A FIFO is refused by its type at once (before: an open that blocked, deaf to Ctrl-C).
  fs::remove(from + "/b.key");
  ASSERT_EQ(mkfifo((from + "/b.key").c_str(), 0600), 0);
  auto fifo = copy_run_keys(from, dir + "/other", {"a", "b"});
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(fifo.error().message, from + "/b.key: a FIFO, not a file vpnlab wrote");
  // A key that is not one is not taken as one.
  fs::remove(from + "/b.key");
  std::ofstream(from + "/b.key") << "not a key\n";
  auto bad = copy_run_keys(from, dir + "/other", {"a", "b"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, from + "/b.key: not a base64 X25519 private key (32 bytes)");
}

TEST(FileDoor, ABuildSeesNoTokenAndItsLogNamesNoValue) {
  setenv("VPNLAB_TEST_TOKEN", "s3cret-token", 1);
  setenv("GOPROXY", "direct-for-test", 1);
  const auto env = registry_client_env("/nonexistent/bin");
  unsetenv("VPNLAB_TEST_TOKEN");
  unsetenv("GOPROXY");
  EXPECT_EQ(env.count("VPNLAB_TEST_TOKEN"), 0u) << "another tool's secret never reaches a build script";
  EXPECT_EQ(env.at("GOPROXY"), "direct-for-test") << "Go's own settings do";
  EXPECT_EQ(env.at("GOBIN"), "/nonexistent/bin");
  EXPECT_EQ(env.at("GOTOOLCHAIN"), "local");

  const std::string dir = make_temp_dir("build-log");
  SpawnSpec spec;
  spec.argv = {"true"};
  spec.env = {{"https_proxy", "http://user:password@proxy:3128"}};
  spec.env_values_private = true;
  spec.stdout_path = dir + "/build-1.log";
  auto ran = run_command(spec, 10);
  ASSERT_TRUE(ran.ok()) << ran.error().format();
  const std::string cmd = slurp(dir + "/build-1.log.cmd");
  EXPECT_NE(cmd.find("  https_proxy (value not recorded)\n"), std::string::npos) << cmd;
  EXPECT_EQ(cmd.find("password"), std::string::npos) << cmd;
}

// A `go` that stands in for the registry client: it notes each call in COUNT, takes `seconds`
// (or until killed), and leaves the program its last argument names in $GOBIN.
std::string fake_go(const std::string& dir, const std::string& count, int seconds) {
  fs::create_directories(dir);
  std::ofstream(dir + "/go") << "#!/bin/sh\necho $$ >> " << count << "\nsleep " << seconds
                             << "\nfor a; do last=$a; done\nname=$(basename \"${last%%@*}\")\nprintf '#!/bin/sh\\necho "
                                "1.9.5\\n' > \"$GOBIN/$name\"\n"
                                "chmod 755 \"$GOBIN/$name\"\n";
  chmod((dir + "/go").c_str(), 0755);
  return dir;
}

int lines_in(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// The hostile review: two builds of one product at once, and the second deleted the first's
// directory mid-build. One lock per product version: the second waits, then finds it built.
TEST(FileDoor, TwoBuildsOfOneVersionAtOnceBuildItOnce) {
  const std::string dir = make_temp_dir("build-lock");
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  setenv("PATH", (fake_go(dir + "/bin", dir + "/count", 1) + ":" + path).c_str(), 1);
  setenv("VPNLAB_CACHE", (dir + "/cache").c_str(), 1);
  const RegistryBuild b = registry_builds_named(VPNLAB_PRODUCTS_DIR, {"nebula@1.9.5"})->front();
  std::ostringstream first_said, second_said;
  Status first = ok_status(), second = ok_status();
  std::thread one([&] { first = make_registry_build(b, first_said, -1); });
  std::thread two([&] { second = make_registry_build(b, second_said, -1); });
  one.join();
  two.join();
  setenv("PATH", path.c_str(), 1);
  EXPECT_TRUE(first.ok()) << first.error().format();
  EXPECT_TRUE(second.ok()) << second.error().format();
  EXPECT_EQ(lines_in(dir + "/count"), 2) << "go install ran once per package, for one build";
  const std::string said = first_said.str() + second_said.str();
  EXPECT_NE(said.find("nebula@1.9.5: another vpnlab is building it; waiting for that build"), std::string::npos)
      << said;
  EXPECT_NE(said.find("nebula@1.9.5: built already"), std::string::npos) << said;
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "nebula@1.9.5");
  unsetenv("VPNLAB_CACHE");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  EXPECT_EQ(spec->not_built, "");
  EXPECT_FALSE(fs::exists(dir + "/cache/products/nebula/.1.9.5.building")) << "the build was renamed into place";
}

// kill -9 of a build left `go install` running and writing into the cache: the client now
// dies with the vpnlab that started it (a parent-death signal).
TEST(FileDoor, AKilledBuildLeavesNoClientRunning) {
  const std::string dir = make_temp_dir("build-kill");
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  fake_go(dir + "/bin", dir + "/count", 300);
  pid_t builder = fork();
  if (builder == 0) {
    setenv("PATH", (dir + "/bin:" + path).c_str(), 1);
    setenv("VPNLAB_CACHE", (dir + "/cache").c_str(), 1);
    std::ostringstream said;
    (void)make_registry_build(registry_builds_named(VPNLAB_PRODUCTS_DIR, {"nebula@1.9.5"})->front(), said, -1);
    _exit(0);
  }
  // Wait for the client to note its pid (an inotify-free poll of a file, bounded).
  pid_t client = 0;
  for (int i = 0; i < 200 && client == 0; ++i) {
    std::ifstream in(dir + "/count");
    in >> client;
    if (client == 0) usleep(50000);
  }
  ASSERT_NE(client, 0) << "the fake go never started";
  UniqueFd watch = pidfd_open_pid(client);
  ASSERT_TRUE(watch.valid());
  ASSERT_EQ(kill(builder, SIGKILL), 0);
  waitpid(builder, nullptr, 0);
  EXPECT_TRUE(pidfd_wait_exit(watch.get(), 10000)) << "the client outlived the killed build";
  kill(-client, SIGKILL);  // its `sleep`, in its process group: never left behind by the test either
}

}  // namespace
}  // namespace vpnlab
