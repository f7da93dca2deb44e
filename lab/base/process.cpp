#include "lab/base/process.h"

#include <sys/prctl.h>

#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <system_error>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>

#include "lab/base/fault.h"
#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/base/pidfd.h"
#include "lab/base/private_dir.h"

namespace bp = boost::process;

namespace vpnlab {

struct Child::Impl {
  bp::child child;
  UniqueFd pidfd;
};

Child::Child() : impl_(new Impl) {}

Child::~Child() {
  if (!reaped_) stop(2000);
}

pid_t Child::pid() const { return impl_->child.id(); }

void Child::disown() {
  reaped_ = true;
  impl_->child.detach();
}

int Child::pidfd() const { return impl_->pidfd.get(); }

std::string find_program(const std::string& name) {
  // A directory has the execute bit too: only a regular file (or a link to one) is a program.
  struct stat st {};
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0 && stat(name.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? name : "";
  std::string found = bp::search_path(name).string();
  return !found.empty() && stat(found.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? found : "";
}

// Next to a process's output: what ran, so anyone can rerun it by hand ("LOG.cmd": the
// argv, one word per line after "argv:", the environment added to the fixed one, the
// CPUs). Argv and env never hold key material: products read keys from files.
static void record_command(const SpawnSpec& spec, const std::string& exe) {
  if (spec.stdout_path.empty() || spec.stdout_path == "/dev/null") return;
  std::string text = "exe: " + exe + "\nargv:\n";
  for (const auto& a : spec.argv) text += "  " + a + "\n";
  text += "env (added to PATH, LANG=C.UTF-8, HOME=/root):\n";
  for (const auto& [k, v] : spec.env)
    text += "  " + k + (spec.env_values_private ? " (value not recorded)" : "=" + v) + "\n";
  text += "cpus:";
  for (int c : spec.cpus) text += " " + std::to_string(c);
  text += spec.cpus.empty() ? " not pinned\n" : "\n";
  text += std::string("network namespace: ") + (spec.netns_fd >= 0 ? "the node's" : "the host's") + "\n";
  if (spec.daemon) text += "runs until stopped: yes\n";
  (void)write_file(spec.stdout_path + ".cmd", text, 0640);
}

ProcStatus read_proc_status(pid_t pid) {
  ProcStatus st;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:")
      in >> st.rss_kb;
    else if (key == "VmHWM:")
      in >> st.peak_rss_kb;
    else if (key == "Threads:")
      in >> st.threads;
    std::string rest;
    std::getline(in, rest);
  }
  return st;
}

double read_proc_cpu_seconds(pid_t pid) {
  // utime and stime are fields 14 and 15 of /proc/PID/stat, counted after the command's
  // closing parenthesis (the command itself may hold blanks and parentheses).
  const std::string stat = read_file_text("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string first_output_line(const std::vector<std::string>& argv) {
  // The output goes to a private directory (0700, a fresh name): never to a name in /tmp that
  // another user could guess and plant a link at (the output's LOG.cmd beside it included).
  auto scratch = PrivateDir::make(kVersionProbePrefix);
  if (!scratch) return "";
  SpawnSpec s;
  s.argv = argv;
  s.stdout_path = scratch->path() + "/out";
  s.stderr_path = "/dev/null";  // warnings on stderr are not the version
  (void)run_command(s, 5);
  auto text = read_input_file(s.stdout_path, kMaxToolOutputBytes);
  std::istringstream in(text ? *text : "");
  std::string line;
  while (std::getline(in, line) && line.find_first_not_of(" \t") == std::string::npos) {
  }
  return line;
}

namespace {

// A fixed, small environment (a daemon must not see vpnlab's own), plus the spec's.
bp::environment child_environment(const SpawnSpec& spec) {
  bp::environment env;
  env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  env["LANG"] = "C.UTF-8";
  env["HOME"] = "/root";
  for (const auto& [k, v] : spec.env) env[k] = v;
  return env;
}

// Boost v1 opens redirect targets without O_TRUNC: a reused output file would keep the
// tail of its previous, longer content. Start every output file empty.
Status empty_output_files(const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    if (path == "/dev/null") continue;
    // Never through a link or into a FIFO at the log's name: write_file refuses both.
    if (auto s = write_file(path, "", 0640); !s) return s;
  }
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<Child>> Child::spawn(const SpawnSpec& spec) {
  if (spec.argv.empty()) return make_error("internal: empty argv");
  std::string exe = find_program(spec.argv[0]);
  if (exe.empty())
    return make_error("program '" + spec.argv[0] + "' not found in PATH",
                      "install the Debian package that provides it");
  bp::environment env = child_environment(spec);
  std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  record_command(spec, exe);

  // Everything the hook needs is prepared here: after fork() in a threaded parent the
  // child may only make async-signal-safe calls (no allocation).
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int c : spec.cpus) CPU_SET(c, &cpus);
  const bool pin = !spec.cpus.empty();
  const int fault_signal = fault_signal_due("fork-exec");  // raised by the child, at vpnlab
  const int netns_fd = spec.netns_fd, mntns_fd = spec.mntns_fd;
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  const int stdio_fd = spec.stdio_fd;
  const bool die_with_parent = spec.die_with_parent;

  auto hook = [&](auto& exec) {
    auto fail = [&](const char* what) {
      int err = errno;
      // Boost's error_code path keeps only errno: say which step failed in the log too.
      (void)!write(2, "vpnlab: ", 8);
      (void)!write(2, what, strlen(what));
      (void)!write(2, "\n", 1);
      exec.set_error(std::error_code(err, std::system_category()), what);
      _exit(127);
    };
    if (fault_signal) kill(getppid(), fault_signal);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);  // vpnlab ignores it; an ignored signal would survive exec
    setpgid(0, 0);             // a terminal's Ctrl-C reaches vpnlab, which then stops us in order
    if (mntns_fd >= 0 && setns(mntns_fd, CLONE_NEWNS) < 0) fail("cannot join the node's mount namespace");
    if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) < 0) fail("cannot join the node's network namespace");
    if (cwd && chdir(cwd) < 0) fail("cannot change to the node's directory");
    if (pin && sched_setaffinity(0, sizeof cpus, &cpus) < 0) fail("cannot pin to the node's CPUs");
    // After Boost's redirections (this hook runs last): a channel as stdin and stdout.
    if (stdio_fd >= 0 && (dup2(stdio_fd, 0) < 0 || dup2(stdio_fd, 1) < 0))
      fail("cannot connect the child's stdin and stdout");
    if (die_with_parent && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) fail("cannot set the parent-death signal");
    // Inherited fds (namespace fds, netlink sockets, other children's pipes) must not leak
    // into daemons; close-on-exec keeps Boost's error pipe working until exec.
    syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
  };

  std::unique_ptr<Child> c(new Child());
  c->name_ = spec.argv[0];
  std::error_code ec;
  const std::string err_path = spec.stderr_path.empty() ? spec.stdout_path : spec.stderr_path;
  if (auto s = empty_output_files({spec.stdout_path, err_path}); !s) return s.error();
  if (err_path == spec.stdout_path) {
    c->impl_->child = bp::child(bp::exe = exe, bp::args = args, env,
                                bp::std_in<bp::null, (bp::std_out & bp::std_err)> spec.stdout_path,
                                bp::extend::on_exec_setup = hook, ec);
  } else {
    c->impl_->child = bp::child(bp::exe = exe, bp::args = args, env, bp::std_in<bp::null, bp::std_out> spec.stdout_path,
                                bp::std_err > err_path, bp::extend::on_exec_setup = hook, ec);
  }
  if (ec) {
    c->reaped_ = true;
    return make_error("cannot start '" + spec.argv[0] + "': " + ec.message() + "\n" + log_tail(err_path, 2),
                      "see " + err_path);
  }
  c->impl_->pidfd = pidfd_open_pid(c->pid());
  if (!c->impl_->pidfd.valid()) {
    int err = errno;
    c->stop(0);
    return make_error("pidfd_open(" + std::to_string(c->pid()) + "): " + errno_text(err), "vpnlab needs Linux >= 5.3");
  }
  return c;
}

void Child::reap() {
  if (reaped_) return;
  int status = 0;
  pid_t p;
  do p = waitpid(pid(), &status, 0);
  while (p < 0 && errno == EINTR);
  reaped_ = true;
  // Detach so Boost's destructor does not act on a pid that is no longer ours.
  impl_->child.detach();
  if (p < 0) return;
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool Child::running() {
  if (reaped_) return false;
  if (!pidfd_wait_exit(impl_->pidfd.get(), 0)) return true;
  reap();
  return false;
}

bool Child::wait_exit(int timeout_ms, int interrupt_fd, bool* interrupted) {
  if (reaped_) return true;
  if (!pidfd_wait_exit(impl_->pidfd.get(), timeout_ms, interrupt_fd, interrupted)) return false;
  reap();
  return true;
}

bool Child::stop(int grace_ms) {
  if (reaped_) return false;
  bool killed = terminate_gracefully(impl_->pidfd.get(), grace_ms);
  reap();
  return killed;
}

ProcessOutcome finish_run(NodeProcess& p, double timeout_s, int interrupt_fd) {
  ProcessOutcome out;
  if (!p.wait_exit(static_cast<int>(timeout_s * 1000), interrupt_fd, &out.interrupted)) {
    out.timed_out = !out.interrupted;
    p.stop(1000);
  }
  out.exit_status = p.exit_status();
  return out;
}

Result<ProcessOutcome> run_command(const SpawnSpec& spec, double timeout_s, int interrupt_fd) {
  auto child = Child::spawn(spec);
  if (!child) return child.error();
  return finish_run(**child, timeout_s, interrupt_fd);
}

std::string log_tail(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += "    | " + l + "\n";
  return out;
}

}  // namespace vpnlab
