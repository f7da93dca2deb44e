// The vpnlab binary used as a hostile user would: a pipe that closes, a daemon killed
// mid-sample, a product that never starts, a full disk, the debris of a killed run, a
// torn results.csv. Each must end in kept rows, a torn-down lab and an honest exit code.
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "lab/base/fs_util.h"
#include "lab/record/results_csv.h"
#include "lab/results/run_files.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

bool wait_until(const std::function<bool()>& done, int seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

void expect_lab_gone(const std::string& context) {
  EXPECT_TRUE(list_namespaces("vpnlab-quick-").empty()) << context;
  EXPECT_TRUE(pids_named("wireguard-go").empty()) << context;
  EXPECT_TRUE(pids_named("iperf3").empty()) << context;
}

}  // namespace

// `vpnlab run ... | head -3`: the reader goes away after three lines. vpnlab must not die
// of SIGPIPE: it stops printing, measures on, tears down, and its exit code is the run's.
TEST(Trust, ClosedPipeStopsTheOutputNotTheRun) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string out = make_temp_dir("trust-pipe");
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    signal(SIGPIPE, SIG_DFL);  // as a shell leaves it
    execl(VPNLAB_BINARY, VPNLAB_BINARY, "run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--samples",
          "2", "--duration", "1s", "--out", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  // Read three lines, as `head -3` does, then close the pipe.
  std::string got;
  char c;
  int lines = 0;
  while (lines < 3 && read(fds[0], &c, 1) == 1) {
    got += c;
    if (c == '\n') ++lines;
  }
  close(fds[0]);
  int status = 0;
  ASSERT_TRUE(wait_until([&] { return waitpid(pid, &status, WNOHANG) == pid; }, 120)) << got;
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << " after:\n"
                                 << got;
  EXPECT_EQ(WEXITSTATUS(status), 0) << got;
  std::string run_dir = run_dir_in(out);
  auto rows = read_results_csv(run_dir + "/results.csv");
  ASSERT_TRUE(rows.ok()) << run_dir;
  EXPECT_EQ(rows->size(), 2u) << "both samples measured after the reader left";
  EXPECT_NE(read_file(run_dir + "/summary.txt").find("2/2"), std::string::npos);
  expect_lab_gone(got);
}

// A daemon that dies mid-sample: its row stays (with the reason, on one line), counts in
// the summary, makes the exit code say so, and --resume does not measure it again.
TEST(Trust, DaemonKilledMidSampleKeepsItsRowAndResumeDoesNotRedoIt) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string out = make_temp_dir("trust-kill");
  SpawnSpec s;
  s.argv = {VPNLAB_BINARY,
            "run",
            VPNLAB_TOPOLOGIES "/quick.toml",
            "--product",
            "wireguard-go",
            "--samples",
            "2",
            "--duration",
            "3s",
            "--out",
            out};
  with_test_history(&s);
  s.stdout_path = out + "/run.log";  // inside the scratch directory, which goes at the end
  auto child = Child::spawn(s);
  ASSERT_TRUE(child.ok()) << child.error().format();
  // Sample 1's iperf3 client is recorded (LOG.cmd) as it starts: then the daemon dies.
  auto sample_started = [&] {
    std::string raw = run_dir_in(out) + "/raw/wireguard-go/a-to-b";
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(raw, ec)) {
      std::string n = e.path().filename().string();
      if (n.rfind("sample-1", 0) == 0 && n.size() > 4 && n.substr(n.size() - 4) == ".cmd") return true;
    }
    return false;
  };
  ASSERT_TRUE(wait_until(sample_started, 60)) << read_file(out + "/run.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto daemons = pids_named("wireguard-go");
  ASSERT_FALSE(daemons.empty());
  kill(daemons.front(), SIGKILL);
  ASSERT_TRUE((*child)->wait_exit(120000));
  std::string log = read_file(out + "/run.log");
  EXPECT_EQ((*child)->exit_status(), 5) << log;
  EXPECT_NE(log.find("1 of 2 rows failed or are invalid"), std::string::npos) << log;
  std::string run_dir = run_dir_in(out);
  auto rows = read_results_csv(run_dir + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].status, "failed");
  EXPECT_NE((*rows)[0].reason.find("exited with status"), std::string::npos) << (*rows)[0].reason;
  std::string text = read_file(run_dir + "/results.csv");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << "header and two rows, each one line";
  EXPECT_NE(read_file(run_dir + "/summary.txt").find("1/2"), std::string::npos) << read_file(run_dir + "/summary.txt");
  expect_lab_gone(log);
  // Resuming finds both rows there: nothing is measured again, nothing appended.
  CliOutcome resumed = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "wireguard-go", "--samples",
                                   "2", "--duration", "3s", "--resume", run_dir});
  EXPECT_EQ(resumed.status, 5) << resumed.err;
  EXPECT_EQ(read_file(run_dir + "/results.csv"), text);
}

// A product whose daemon exits at once: every row failed with the daemon's exit status
// as the reason, the lab torn down, and exit 4 (no valid row), which CI turns red on.
TEST(Trust, AProductThatNeverStartsExitsNonZeroNamingWhy) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string products = product_variant("wireguard-go", "broken", "daemon = [\"wireguard-go\", \"{{interface}}\"]",
                                         "daemon = [\"sh\", \"-c\", \"echo broken daemon says goodbye; exit 3\"]");
  std::filesystem::copy(VPNLAB_PRODUCTS_DIR "/baseline", products + "/baseline",
                        std::filesystem::copy_options::recursive);
  std::string out = make_temp_dir("trust-broken");
  CliOutcome o = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--product", "broken",
                             "--samples", "1", "--duration", "1s", "--out", out},
                            {{"VPNLAB_PRODUCTS", products}});
  EXPECT_EQ(o.status, 4) << o.err;
  EXPECT_NE(o.err.find("vpnlab: error: no valid row for broken / a-to-b\nhint: "), std::string::npos) << o.err;
  auto rows = read_results_csv(run_dir_in(out) + "/results.csv");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_TRUE((*rows)[0].valid);
  EXPECT_EQ((*rows)[1].product, "broken");
  EXPECT_NE((*rows)[1].reason.find("'sh' exited with status 3"), std::string::npos)
      << "the daemon's death, not its symptom: " << (*rows)[1].reason;
  expect_lab_gone(o.err);
}

// A full disk: before the run, refused with ENOSPC named; during the run, stopped with
// ENOSPC named, finished rows kept whole, no row blaming the product, lab torn down.
TEST(Trust, AFullDiskStopsTheRunAndSaysSo) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string mnt = make_temp_dir("trust-disk");
  ASSERT_EQ(mount("tmpfs", mnt.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=400k,mode=0755"), 0) << errno_text(errno);
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{mnt};
  CliOutcome small = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--samples", "2",
                                 "--duration", "1s", "--out", mnt});
  EXPECT_EQ(small.status, 1) << small.err;
  EXPECT_NE(small.err.find("disk full"), std::string::npos) << small.err;
  EXPECT_NE(small.err.find("No space left on device (ENOSPC)"), std::string::npos) << small.err;
  expect_lab_gone(small.err);

  ASSERT_EQ(mount("tmpfs", mnt.c_str(), "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, "size=4m,mode=0755"), 0)
      << errno_text(errno);
  SpawnSpec s;
  s.argv = {VPNLAB_BINARY, "run",        VPNLAB_TOPOLOGIES "/quick.toml",
            "--product",   "baseline",   "--samples",
            "30",          "--duration", "1s",
            "--out",       mnt};
  with_test_history(&s);
  std::string logs = make_temp_dir("trust-disk-log");
  s.stdout_path = logs + "/log";
  auto child = Child::spawn(s);
  ASSERT_TRUE(child.ok());
  auto has_a_row = [&] {
    auto rows = read_results_csv(run_dir_in(mnt) + "/results.csv");
    return rows.ok() && !rows->empty();
  };
  ASSERT_TRUE(wait_until(has_a_row, 90)) << read_file(s.stdout_path);
  // Another writer fills the disk but for 100 KiB.
  struct statvfs st {};
  ASSERT_EQ(statvfs(mnt.c_str(), &st), 0);
  uint64_t fill = static_cast<uint64_t>(st.f_bavail) * st.f_frsize - 100 * 1024;
  {
    std::ofstream filler(mnt + "/filler", std::ios::binary);
    std::string block(64 * 1024, 'x');
    for (uint64_t done = 0; done + block.size() <= fill; done += block.size()) filler << block;
  }
  ASSERT_TRUE((*child)->wait_exit(120000));
  std::string log = read_file(s.stdout_path);
  EXPECT_EQ((*child)->exit_status(), 1) << log;
  EXPECT_NE(log.find("disk full"), std::string::npos) << log;
  EXPECT_NE(log.find("(ENOSPC)"), std::string::npos) << log;
  auto rows = read_results_csv(run_dir_in(mnt) + "/results.csv");
  ASSERT_TRUE(rows.ok()) << "every kept row whole: " << rows.error().format();
  EXPECT_GE(rows->size(), 1u);
  EXPECT_LT(rows->size(), 30u);
  for (const auto& r : *rows) EXPECT_EQ(r.status, "ok") << "no row blames the product for the disk: " << r.reason;
  auto env = read_environment(run_dir_in(mnt), /*required=*/true);
  EXPECT_TRUE(env.ok()) << "provenance is never left truncated: " << env.error().format();
  expect_lab_gone(log);
}

// After kill -9 the next run does not measure next to the killed run's daemons: it
// refuses and names `vpnlab cleanup`; after the cleanup it runs.
TEST(Trust, TheDebrisOfAKilledRunIsRefusedUntilCleanedUp) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string out = make_temp_dir("trust-debris");
  CliOutcome killed = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "wireguard-go", "--samples", "1",
                                  "--duration", "2s", "--out", out},
                                 {{"VPNLAB_FAULT", "mid-sample:1:kill"}});
  ASSERT_EQ(killed.status, 128 + 9) << killed.err;
  ASSERT_FALSE(list_namespaces("vpnlab-quick-").empty()) << "the kill left the lab up";
  CliOutcome next = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--samples", "1",
                                "--duration", "1s", "--out", out});
  EXPECT_EQ(next.status, 1) << next.err;
  EXPECT_NE(next.err.find("namespace(s) of an earlier run are still there (vpnlab-quick-"), std::string::npos)
      << next.err;
  EXPECT_NE(next.err.find("hint: run 'vpnlab cleanup' first"), std::string::npos) << next.err;
  CliOutcome cleaned = vpnlab_cli({"cleanup"});
  EXPECT_EQ(cleaned.status, 0) << cleaned.err;
  next = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--samples", "1", "--duration",
                     "1s", "--out", out});
  EXPECT_EQ(next.status, 0) << next.err;
  expect_lab_gone(next.err);
}

// --resume on a results.csv whose last row was cut short (a crash of an older version, a
// full disk, a hand edit): the torn bytes go, the new rows are whole and keep the run id
// even in a renamed directory.
TEST(Trust, ResumeCutsATornRowAndKeepsTheRunId) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string out = make_temp_dir("trust-torn");
  // A run of 2 samples interrupted after the first: its second row cut off, then a torn one.
  CliOutcome first = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--samples", "2",
                                 "--duration", "1s", "--out", out});
  ASSERT_EQ(first.status, 0) << first.err;
  std::string renamed = out + "/renamed";
  std::filesystem::rename(run_dir_in(out), renamed);
  {
    std::string csv = read_file(renamed + "/results.csv");
    const size_t cut = csv.find('\n', csv.find('\n') + 1) + 1;  // the header and the first row
    ASSERT_TRUE(write_file(renamed + "/results.csv", csv.substr(0, cut), 0640).ok());
  }
  auto before = read_results_csv(renamed + "/results.csv");
  ASSERT_TRUE(before.ok() && before->size() == 1u);
  { std::ofstream(renamed + "/results.csv", std::ios::app) << before->front().run_id << ",2026-12-01T00:00:00Z,basel"; }
  CliOutcome resumed =
      vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--product", "baseline", "--resume", renamed});
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("removed a torn last row"), std::string::npos) << resumed.err;
  auto rows = read_results_csv(renamed + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[1].sample, 2);
  EXPECT_EQ((*rows)[1].run_id, before->front().run_id);
}

// Options with no root needed: bounds and --from's refusals come before anything else.
TEST(Trust, AbsurdNumbersAndConflictingOptionsAreUsageErrors) {
  CliOutcome o = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/quick.toml", "--samples", "1000000000"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "vpnlab: error: --samples 1000000000 is out of range: 1 to 1000\nhint: see 'vpnlab run --help'\n");
  o = vpnlab_cli({"plan", VPNLAB_TOPOLOGIES "/quick.toml", "--duration", "99999999999999999999s"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err,
            "vpnlab: error: --duration 99999999999999999999s is out of range: 1s to 3600s per sample\nhint: see "
            "'vpnlab plan --help'\n");
  o = vpnlab_cli({"run", "--from", "/nonexistent", "--samples", "3"});
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(
      o.err.find("vpnlab: error: --samples cannot be given with --from: --from repeats exactly what that run did"),
      std::string::npos)
      << o.err;
}

// strongswan-libipsec at an overlay MTU below its TUN's 1400: levelled, not a failed
// bring-up. charon set ipsec0 to 1400 after vpnlab had set the overlay's MTU (before the
// fix 5 of 6 bring-ups failed with "ipsec0 has MTU 1400, not the overlay's 1380").
TEST(Trust, StrongswanLibipsecCarriesASmallerOverlayMtu) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("swanctl");
  std::string dir = make_temp_dir("trust-mtu");
  std::string text = read_file(VPNLAB_TOPOLOGIES "/quick.toml");
  text.replace(text.find("mtu = 1400"), 10, "mtu = 1380");
  std::ofstream(dir + "/quick.toml") << text;
  CliOutcome o = vpnlab_cli({"run", dir + "/quick.toml", "--product", "strongswan-libipsec", "--samples", "3",
                             "--duration", "1s", "--out", dir});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err.find("has MTU 1400"), std::string::npos) << o.err;
  auto rows = read_results_csv(run_dir_in(dir) + "/results.csv");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 3u);
  for (const auto& r : *rows) EXPECT_TRUE(r.valid) << r.reason;
}

// One definition per option: every verb's --help lists what it accepts, `-x` is not a
// file, `--opt=value` and `--` work, and there is a --version. No root needed.
TEST(Trust, OptionsAndHelpComeFromOneDefinition) {
  CliOutcome o = vpnlab_cli({"plan", "--help"});
  EXPECT_EQ(o.status, 0);
  for (const char* opt : {"--product NAME", "--samples N", "--duration D", "--no-pin", "--sequential"})
    EXPECT_NE(o.out.find(std::string("\n  ") + opt), std::string::npos) << opt << " missing in:\n" << o.out;
  o = vpnlab_cli({"validate", "--help"});
  EXPECT_NE(o.out.find("\n  --product NAME"), std::string::npos) << o.out;
  o = vpnlab_cli({"validate", VPNLAB_TOPOLOGIES "/quick.toml", "-x"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err,
            "vpnlab: error: unknown option '-x' for 'validate' (short ones: -h, -q, -v)\nhint: see 'vpnlab validate "
            "--help'\n");
  o = vpnlab_cli({"plan", "--samples=3", "--product=baseline", "--", VPNLAB_TOPOLOGIES "/quick.toml"});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("samples 3 x 3 s"), std::string::npos) << o.out;
  o = vpnlab_cli({"cleanup", "--dry-run=yes"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "vpnlab: error: --dry-run takes no value\nhint: see 'vpnlab cleanup --help'\n");
  o = vpnlab_cli({"--version"});
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out.rfind("vpnlab ", 0), 0u) << o.out;
  EXPECT_EQ(vpnlab_cli({"version"}).out, o.out);
}
