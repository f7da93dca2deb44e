// ssh under vpnlab's own control, against real sshds (tests/support/emulated_hosts.h): a
// topology cannot make root's ssh write a file, host keys are pinned, named or recorded in
// vpnlab's own file only, and the control socket sits where no other user can reach it.
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "hosts_fixture.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

namespace fs = std::filesystem;

// The two-host topology with each host's known_hosts line replaced by `trust[i]` ("" drops
// it), and `extra_options` put first in every ssh_options.
std::string with_trust(const Fixture& f, const std::string& lab, const std::vector<std::string>& trust,
                       const std::string& extra_options = "") {
  std::string text = topology(*f.hosts, lab, "\"baseline\"");
  const std::string line = "known_hosts = \"" + f.hosts->known_hosts() + "\"\n";
  for (const auto& t : trust) text.replace(text.find(line), line.size(), t.empty() ? "" : t + "\n");
  if (!extra_options.empty())
    for (size_t at = 0; (at = text.find("ssh_options = [", at)) != std::string::npos; at += 15)
      text.insert(at + 15, extra_options + ", ");
  return text;
}

// "ssh-ed25519 AAAA..." of a .pub file (without its comment).
std::string key_of(const std::string& pub) {
  std::istringstream in(read_file(pub));
  std::string type, key;
  in >> type >> key;
  return type + " " + key;
}

// Every ControlPath=... that a running ssh this suite started was given (a user's own ssh,
// running before the suite began, is theirs).
std::set<std::string> control_paths() {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    if (processes_before_suite().count(process_identity(e.path().filename().string()))) continue;
    const std::string cmdline = read_file(e.path().string() + "/cmdline");
    const std::string argv0 = cmdline.substr(0, cmdline.find('\0'));
    if (argv0 != "ssh" && (argv0.size() < 4 || argv0.compare(argv0.size() - 4, 4, "/ssh") != 0)) continue;
    for (size_t at = 0; (at = cmdline.find("ControlPath=", at)) != std::string::npos; at += 12)
      out.insert(cmdline.substr(at + 12, cmdline.find('\0', at) - at - 12));
  }
  return out;
}

// connect() to a unix socket as user nobody, in a child: 0, or the errno it failed with.
int connect_as_nobody(const std::string& path) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(100);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    _exit(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 ? 0 : errno);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

// The hostile review: -o UserKnownHostsFile=FILE with StrictHostKeyChecking=accept-new made
// `doctor` append the host's key to FILE as root (an authorized_keys, a cron file). Now
// validate and doctor refuse it at its place and FILE is never touched.
TEST(SshTrust, AnOptionThatWouldMakeSshWriteAFileIsRefusedAndTheFileUntouched) {
  VPNLAB_REQUIRE_SSH();
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  const std::string victim = f.dir + "/authorized_keys";
  ASSERT_TRUE(write_file(victim, "precious\n", 0600).ok());
  const std::string file = f.dir + "/append.toml";
  ASSERT_TRUE(write_file(file,
                         with_trust(f, "sshappend", {"", ""},
                                    "\"-o\", \"UserKnownHostsFile=" + victim +
                                        "\", \"-o\", \"StrictHostKeyChecking=accept-new\""),
                         0644)
                  .ok());
  for (const char* verb : {"validate", "doctor", "run"}) {
    CliOutcome o = run_controller(*f.hosts, {verb, file}, f.dir);
    EXPECT_EQ(o.status, 1) << verb << ": " << o.out << o.err;
    EXPECT_NE(o.err.find(file + ":9:"), std::string::npos) << verb << ": " << o.err;
    EXPECT_NE(
        o.err.find(
            "ssh_options: -o UserKnownHostsFile is vpnlab's to set: with it ssh writes host keys to a file as root"),
        std::string::npos)
        << verb << ": " << o.err;
    EXPECT_EQ(read_file(victim), "precious\n") << verb;
  }
}

// host_key = "accept-new" records each host's first key in vpnlab's own file (0600), and
// nowhere else; the next connection is checked against it.
TEST(SshTrust, AcceptNewWritesOnlyVpnlabsOwnKnownHostsFile) {
  VPNLAB_REQUIRE_SSH();
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  const std::string file = f.dir + "/accept-new.toml";
  const std::string own = f.dir + "/state/known_hosts";
  ASSERT_TRUE(
      write_file(file, with_trust(f, "sshtofu", {"host_key = \"accept-new\"", "host_key = \"accept-new\""}), 0644)
          .ok());
  std::set<std::string> before;
  for (const auto& e : fs::recursive_directory_iterator(f.dir)) before.insert(e.path().string());
  for (int pass = 0; pass < 2; ++pass) {
    SpawnSpec s = controller_spec(*f.hosts, {"doctor", file}, f.dir);
    s.env["VPNLAB_KNOWN_HOSTS"] = own;
    auto r = run_command(s, 120);
    ASSERT_TRUE(r.ok());
    const std::string out = read_file(s.stdout_path);
    EXPECT_NE(out.find("  Host h1 (ssh root@10.231.1.2): kernel "), std::string::npos)
        << out << read_file(s.stderr_path);
    EXPECT_NE(out.find("  Host h2 (ssh root@10.231.2.2): kernel "), std::string::npos) << out;
  }
  const std::string recorded = read_file(own);
  EXPECT_NE(recorded.find("10.231.1.2 " + key_of(f.dir + "/host1_key.pub")), std::string::npos) << recorded;
  EXPECT_NE(recorded.find("10.231.2.2 " + key_of(f.dir + "/host2_key.pub")), std::string::npos) << recorded;
  EXPECT_EQ(std::count(recorded.begin(), recorded.end(), '\n'), 2) << "the second doctor added nothing:\n" << recorded;
  EXPECT_EQ(fs::status(own).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  for (const auto& e : fs::recursive_directory_iterator(f.dir)) {
    const std::string p = e.path().string();
    if (before.count(p) || p.rfind(f.dir + "/state", 0) == 0 || p.rfind(f.dir + "/vpnlab.", 0) == 0) continue;
    ADD_FAILURE() << "written outside vpnlab's own file: " << p;
  }
}

// A pinned key logs in; another key pinned for the host is refused, named, with the way to pin.
TEST(SshTrust, APinnedKeyIsTheOnlyKeyAccepted) {
  VPNLAB_REQUIRE_SSH();
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  const std::string file = f.dir + "/pinned.toml";
  ASSERT_TRUE(write_file(file,
                         with_trust(f, "sshpin",
                                    {"host_key = \"" + key_of(f.dir + "/host1_key.pub") + "\"",
                                     "host_key = \"" + key_of(f.dir + "/host2_key.pub") + "\""}),
                         0644)
                  .ok());
  CliOutcome o = run_controller(*f.hosts, {"doctor", file}, f.dir);
  EXPECT_NE(o.out.find("  Host h1 (ssh root@10.231.1.2): kernel "), std::string::npos) << o.out << o.err;
  EXPECT_NE(o.out.find("  Host h2 (ssh root@10.231.2.2): kernel "), std::string::npos) << o.out;
  // h1 pinned to h2's key.
  ASSERT_TRUE(write_file(file,
                         with_trust(f, "sshpin",
                                    {"host_key = \"" + key_of(f.dir + "/host2_key.pub") + "\"",
                                     "host_key = \"" + key_of(f.dir + "/host2_key.pub") + "\""}),
                         0644)
                  .ok());
  o = run_controller(*f.hosts, {"run", file, "--out", f.dir + "/results"}, f.dir);
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("vpnlab: error: host 'h1' (ssh root@10.231.1.2): its host key is not one vpnlab trusts"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("hint: pin it in the topology: host_key = "), std::string::npos) << o.err;
  EXPECT_TRUE(list_namespaces("vpnlab-sshpin-").empty());
}

// The hostile review: the ControlPath was /tmp/vpnlab-ssh-PID-%C, a name any local user could
// compute and listen on first (a process of nobody's answered as the agent). Now the master
// socket sits in a directory made by mkdtemp in /run, root's, mode 0700: its name holds no
// pid, and user nobody cannot even connect to the socket inside.
TEST(SshTrust, TheControlSocketSitsWhereNoOtherUserCanReachIt) {
  VPNLAB_REQUIRE_SSH();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  const std::string file = f.dir + "/control.toml";
  ASSERT_TRUE(write_file(file, topology(*f.hosts, "sshctl", "\"baseline\""), 0644).ok());
  auto child = start_run_until_mid_sample(f, file);
  ASSERT_TRUE(child);
  const std::set<std::string> paths = control_paths();
  ASSERT_FALSE(paths.empty()) << "no ssh with a ControlPath while the run is mid-sample";
  for (const auto& p : paths) {
    const std::string dir = p.substr(0, p.rfind('/'));
    // In root's own /run (not world-writable /tmp), with mkdtemp's random part after the
    // pid (the pid is there for `vpnlab cleanup`; in /run nobody else can take the name).
    EXPECT_TRUE(
        std::regex_match(dir, std::regex("/run/vpnlab-ssh-" + std::to_string(child->pid()) + "-[A-Za-z0-9]{6}")))
        << dir;
    struct stat st {};
    ASSERT_EQ(lstat(dir.c_str(), &st), 0) << dir;
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_uid, 0u);
    EXPECT_EQ(st.st_mode & 07777, 0700u) << dir;
    int sockets = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (!e.is_socket()) continue;
      ++sockets;
      EXPECT_EQ(connect_as_nobody(e.path().string()), EACCES) << e.path();
    }
    EXPECT_GE(sockets, 1) << "the master's socket in " << dir;
  }
  ::kill(child->pid(), SIGTERM);
  EXPECT_TRUE(child->wait_exit(60000));
  EXPECT_TRUE(wait_until([] { return list_namespaces("vpnlab-sshctl-").empty(); }, 20));
}
