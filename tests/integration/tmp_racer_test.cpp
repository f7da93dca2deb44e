// Issue 64's /tmp case, raced as a local attacker races it. Every version probe once wrote
// OUTPUT.cmd beside its mkstemp file in /tmp with O_CREAT|O_TRUNC: a watcher that planted a
// symbolic link at that name made root overwrite and chmod a root-only file. Here user
// nobody watches /tmp with inotify and, for every name that appears there, plants links to
// a root-only file at each name a probe could write next (NAME.cmd beside it, NAME/out and
// NAME/out.cmd inside it), while `vpnlab products` probes every product's version. The file
// must keep its bytes and mode, no plant may succeed inside vpnlab's scratch directories,
// and the racer must have seen them appear (else it raced nothing and proves nothing).
// fs.protected_symlinks = 1 would stop the links beside the names for root as well; the
// kernel's default, 0, leaves vpnlab alone to hold.
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <string>

#include "lab/base/fs_util.h"
#include "lab/base/unique_fd.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

struct RaceTally {
  int scratch_seen = 0;    // vpnlab's own scratch directories that appeared in /tmp
  int planted_inside = 0;  // links that went into one of them (must stay 0)
  int planted_beside = 0;  // links planted next to a new name (harmless unless followed)
};

// In a child that is user nobody: plants links at every new /tmp name until `stop` is
// readable, then writes its tally to `report`.
[[noreturn]] void race_as_nobody(const std::string& victim, int stop, int report) {
  if (setgid(65534) != 0 || setuid(65534) != 0) _exit(100);
  UniqueFd in(inotify_init1(IN_CLOEXEC));
  if (in.get() < 0 || inotify_add_watch(in.get(), "/tmp", IN_CREATE) < 0) _exit(101);
  RaceTally tally;
  alignas(inotify_event) char buf[64 * (sizeof(inotify_event) + NAME_MAX + 1)];
  pollfd fds[2] = {{in.get(), POLLIN, 0}, {stop, POLLIN, 0}};
  while (poll(fds, 2, -1) >= 0 && !(fds[1].revents & (POLLIN | POLLHUP))) {
    const ssize_t n = read(in.get(), buf, sizeof buf);
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      // Only vpnlab's names, and never the racer's own links (each would start another).
      const std::string base = e->len ? e->name : "";
      if (base.rfind("vpnlab-", 0) != 0 || base.ends_with(".cmd")) continue;
      const std::string name = "/tmp/" + base;
      if ((e->mask & IN_ISDIR) && base.rfind("vpnlab-version-", 0) == 0) ++tally.scratch_seen;
      if (symlink(victim.c_str(), (name + ".cmd").c_str()) == 0) ++tally.planted_beside;
      for (const char* inside : {"/out", "/out.cmd"})
        if (symlink(victim.c_str(), (name + inside).c_str()) == 0) ++tally.planted_inside;
    }
  }
  (void)!write(report, &tally, sizeof tally);
  _exit(0);
}

}  // namespace

TEST(TmpRacer, AWatcherPlantingLinksInTmpNeverReachesARootOnlyFile) {
  VPNLAB_REQUIRE_ROOT();
  const std::string dir = make_temp_dir("tmpracer");
  const std::string victim = dir + "/root-only";
  const std::string secret = "root's own bytes\n";
  ASSERT_TRUE(write_file(victim, secret, 0600).ok());
  int stop[2], report[2];
  ASSERT_EQ(pipe2(stop, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(report, O_CLOEXEC), 0);
  const pid_t racer = fork();
  ASSERT_GE(racer, 0);
  if (racer == 0) {
    close(stop[1]);  // else the racer holds its own stop signal open and never sees it
    close(report[0]);
    race_as_nobody(victim, stop[0], report[1]);
  }
  close(stop[0]);
  close(report[1]);
  usleep(200 * 1000);  // the watch is set up in well under this; a late start only races less

  CliOutcome r = vpnlab_cli({"products"});
  EXPECT_EQ(r.status, 0) << r.err;

  close(stop[1]);  // the racer stops and reports
  RaceTally tally;
  EXPECT_EQ(read(report[0], &tally, sizeof tally), static_cast<ssize_t>(sizeof tally));
  close(report[0]);
  int status = 0;
  ASSERT_EQ(waitpid(racer, &status, 0), racer);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "racer status " << status;

  EXPECT_GT(tally.scratch_seen, 0) << "the racer saw no probe's scratch directory: it raced nothing";
  EXPECT_EQ(tally.planted_inside, 0) << "a link went into a probe's private directory";
  EXPECT_EQ(read_file(victim), secret);
  struct stat st {};
  ASSERT_EQ(lstat(victim.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  std::printf("racer: %d scratch directories seen, %d links planted beside new names, %d inside\n", tally.scratch_seen,
              tally.planted_beside, tally.planted_inside);
  // The links the racer left beside the names it saw point at this test's file: removed as names.
  for (const auto& e : std::filesystem::directory_iterator("/tmp")) {
    std::error_code ec;
    if (e.is_symlink(ec) && std::filesystem::read_symlink(e.path(), ec) == victim)
      std::filesystem::remove(e.path(), ec);
  }
}
