// Process control through pidfds: signals reach exactly the process we mean, even if its
// pid was reused, and exit is an event we can poll() next to other fds.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "lab/base/unique_fd.h"

namespace vpnlab {

UniqueFd pidfd_open_pid(pid_t pid);
bool pidfd_signal(int pidfd, int sig);
// Waits until the process behind `pidfd` exits, `timeout_ms` passes (false), or
// `interrupt_fd` (may be -1) becomes readable (false, *interrupted = true).
bool pidfd_wait_exit(int pidfd, int timeout_ms, int interrupt_fd = -1, bool* interrupted = nullptr);

// After a second interrupt the user wants out fast: graces drop to zero (everything is
// still ended and removed). Async-signal-safe.
void set_hurry();
bool hurry();

// Waits until one of `fds` is readable (a pidfd: its process exited); returns its index,
// or -1 when `timeout_ms` passed first.
int wait_any(const std::vector<int>& fds, int timeout_ms);

// SIGTERM, wait up to `grace_ms` (none when hurrying), then SIGKILL and wait for the exit. The caller reaps
// its own children; for others the kernel does. Returns true if KILL was needed.
bool terminate_gracefully(int pidfd, int grace_ms);

// The network namespace inode behind a "/proc/PID/task/TID/ns/net" link; 0 if gone.
uint64_t net_inode(const std::string& link_path);

struct ProcessRef {
  pid_t pid = 0;
  std::string comm;
  pid_t tid = 0;  // the first of its threads found in one of the namespaces
};
// Every process (ours included) with a thread in one of these network namespaces: the one
// /proc scan behind processes_in_namespaces() and namespace_holders().
std::vector<ProcessRef> tasks_in_namespaces(const std::vector<uint64_t>& netns_inodes);
// Processes with any thread in one of these network namespaces: a lab process is any
// process whose /proc/PID/ns/net is a lab namespace (forking daemons escape pid tracking).
std::vector<ProcessRef> processes_in_namespaces(const std::vector<uint64_t>& netns_inodes);
// Ends each of them (TERM, grace, KILL), all in parallel; returns what had to be ended.
std::vector<ProcessRef> end_processes_in_namespaces(const std::vector<uint64_t>& netns_inodes, int grace_ms);

}  // namespace vpnlab
