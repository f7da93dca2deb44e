// Processes inside a node: launched with Boost.Process (v1) and a fork-to-exec hook that
// joins the node's network and mount namespaces, pins CPUs, and closes inherited fds;
// stopped with TERM -> grace -> KILL through a pidfd (Boost v1's terminate() is SIGKILL).
#pragma once
#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

struct SpawnSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH unless absolute
  std::map<std::string, std::string> env;  // added to a small fixed environment
  int netns_fd = -1;                       // -1: stay in the caller's namespace
  int mntns_fd = -1;
  std::vector<int> cpus;    // empty: no pinning
  std::string stdout_path;  // where stdout goes (required)
  std::string stderr_path;  // empty: same file as stdout
  std::string cwd;
  int stdio_fd = -1;                // >= 0: stdin and stdout are this fd (a socket to the child)
  bool die_with_parent = false;     // SIGKILL when the spawning thread ends (a test's servers)
  bool env_values_private = false;  // LOG.cmd names env's variables, never their values (a proxy's credentials)
  bool daemon = false;              // runs until stopped: LOG.cmd says so (a hand recipe starts it in the background)
};

// The first non-empty line a command prints on stdout ("iperf 3.12 (cJSON 1.7.15)"), run
// with a 5 s limit; empty if it cannot run.
std::string first_output_line(const std::vector<std::string>& argv);
// Where it keeps the output meanwhile: a PrivateDir named PREFIX<pid>-XXXXXX in /tmp.
inline constexpr const char* kVersionProbePrefix = "vpnlab-version-";

// What /proc/PID/status says of a process's memory and threads; zeros when it is gone or
// unreadable (a daemon that exited between listing and reading).
struct ProcStatus {
  int64_t rss_kb = 0;       // VmRSS: resident now
  int64_t peak_rss_kb = 0;  // VmHWM: the most it was resident
  int threads = 0;
};
ProcStatus read_proc_status(pid_t pid);
// User + system CPU seconds a process used so far, all its threads (/proc/PID/stat); 0
// when it is gone or unreadable. Apart from read_proc_status, which the memory sampler
// reads ten times a second: only a relay's meter needs this, twice a sample.
double read_proc_cpu_seconds(pid_t pid);

// A process started in a node: a Child on this host, or one in a guest (lab/backends/vm/).
class NodeProcess {
 public:
  virtual ~NodeProcess() = default;
  virtual const std::string& name() const = 0;
  virtual bool running() = 0;
  // Readable once the process has exited (a pidfd, or an eventfd the backend signals).
  virtual int exit_fd() const = 0;
  virtual bool wait_exit(int timeout_ms, int interrupt_fd = -1, bool* interrupted = nullptr) = 0;
  virtual int exit_status() const = 0;
  // TERM, grace, KILL; reaps. True if KILL was needed.
  virtual bool stop(int grace_ms = 2000) = 0;
  // The pid on this host, or 0 when the process is not visible here (in a guest).
  virtual pid_t host_pid() const = 0;
  // Its memory and threads, read where it runs (this host's /proc, or the agent's).
  virtual ProcStatus status() { return read_proc_status(host_pid()); }
  // Its CPU seconds so far, read where it runs; 0 where that cannot be told.
  virtual double cpu_seconds() { return read_proc_cpu_seconds(host_pid()); }
};

class Child : public NodeProcess {
 public:
  static Result<std::unique_ptr<Child>> spawn(const SpawnSpec& spec);
  ~Child() override;  // a child still running is stopped, never left behind
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const;
  int pidfd() const;  // readable once the process has exited
  const std::string& name() const override { return name_; }
  bool running() override;
  int exit_fd() const override { return pidfd(); }
  // Waits for exit. False on timeout or interrupt (see *interrupted).
  bool wait_exit(int timeout_ms, int interrupt_fd = -1, bool* interrupted = nullptr) override;
  // Exit status after wait_exit()/stop(): code, or 128+signal if killed by a signal.
  int exit_status() const override { return exit_status_; }
  // TERM, grace, KILL; reaps. Returns true if KILL was needed.
  bool stop(int grace_ms = 2000) override;
  pid_t host_pid() const override { return pid(); }
  // Leaves the process running for good (`vpnlab up`'s VM helper): no stop at
  // destruction; whoever ends it later does so by its namespace or pid.
  void disown();

 private:
  Child();
  void reap();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string name_;
  int exit_status_ = -1;
  bool reaped_ = false;
};

struct ProcessOutcome {
  int exit_status = -1;
  bool timed_out = false;
  bool interrupted = false;
};
// Waits for a started process (bounded by timeout_s; stopped if it overruns).
ProcessOutcome finish_run(NodeProcess& p, double timeout_s, int interrupt_fd);
// Runs to completion (bounded by timeout_s); output goes to spec.stdout_path.
Result<ProcessOutcome> run_command(const SpawnSpec& spec, double timeout_s, int interrupt_fd = -1);

// The last `lines` lines of a log file, for error reports.
std::string log_tail(const std::string& path, int lines = 8);

// Full path of a program in PATH, or empty.
std::string find_program(const std::string& name);

}  // namespace vpnlab
