#include "lab/base/pidfd.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>

namespace vpnlab {

namespace {
std::atomic<bool> g_hurry{false};
}  // namespace

void set_hurry() { g_hurry.store(true, std::memory_order_relaxed); }
bool hurry() { return g_hurry.load(std::memory_order_relaxed); }

UniqueFd pidfd_open_pid(pid_t pid) { return UniqueFd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0))); }

bool pidfd_signal(int pidfd, int sig) { return syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) == 0; }

bool pidfd_wait_exit(int pidfd, int timeout_ms, int interrupt_fd, bool* interrupted) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (timeout_ms < 0)
      left = -1;
    else if (left < 0)
      left = 0;
    pollfd fds[2] = {{pidfd, POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
    int n = poll(fds, interrupt_fd >= 0 ? 2 : 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return true;
    if (n > 0 && interrupt_fd >= 0 && (fds[1].revents & POLLIN)) {
      if (interrupted) *interrupted = true;
      return false;
    }
    if (n == 0) return false;
  }
}

int wait_any(const std::vector<int>& fds, int timeout_ms) {
  std::vector<pollfd> p;
  for (int fd : fds) p.push_back(pollfd{fd, POLLIN, 0});
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    int n = poll(p.data(), p.size(), left > 0 ? static_cast<int>(left) : 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) return static_cast<int>(i);
  }
}

bool terminate_gracefully(int pidfd, int grace_ms) {
  if (!pidfd_signal(pidfd, SIGTERM)) return false;  // already gone
  if (pidfd_wait_exit(pidfd, hurry() ? 0 : grace_ms)) return false;
  pidfd_signal(pidfd, SIGKILL);
  pidfd_wait_exit(pidfd, 5000);
  return true;
}

uint64_t net_inode(const std::string& link_path) {
  char buf[64];
  ssize_t n = readlink(link_path.c_str(), buf, sizeof buf - 1);
  if (n <= 5) return 0;
  buf[n] = 0;
  return std::strtoull(buf + 5, nullptr, 10);  // "net:[N]"
}

std::vector<ProcessRef> tasks_in_namespaces(const std::vector<uint64_t>& netns_inodes) {
  std::set<uint64_t> wanted(netns_inodes.begin(), netns_inodes.end());
  std::vector<ProcessRef> out;
  DIR* proc = opendir("/proc");
  if (!proc) return out;
  while (dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::string base = std::string("/proc/") + e->d_name;
    pid_t tid = 0;
    DIR* tasks = opendir((base + "/task").c_str());
    while (tasks && !tid) {
      dirent* t = readdir(tasks);
      if (!t) break;
      if (t->d_name[0] >= '0' && t->d_name[0] <= '9' &&
          wanted.count(net_inode(base + "/task/" + t->d_name + "/ns/net")))
        tid = std::atoi(t->d_name);
    }
    if (tasks) closedir(tasks);
    if (!tid) continue;
    std::ifstream comm(base + "/comm");
    ProcessRef ref{std::atoi(e->d_name), {}, tid};
    std::getline(comm, ref.comm);
    out.push_back(ref);
  }
  closedir(proc);
  return out;
}

std::vector<ProcessRef> processes_in_namespaces(const std::vector<uint64_t>& netns_inodes) {
  std::vector<ProcessRef> out = tasks_in_namespaces(netns_inodes);
  // Our own helper threads are joined, never signalled.
  pid_t self = getpid();
  out.erase(std::remove_if(out.begin(), out.end(), [&](const ProcessRef& p) { return p.pid == self; }), out.end());
  return out;
}

std::vector<ProcessRef> end_processes_in_namespaces(const std::vector<uint64_t>& netns_inodes, int grace_ms) {
  auto found = processes_in_namespaces(netns_inodes);
  std::vector<UniqueFd> fds;
  for (const auto& p : found) {
    fds.push_back(pidfd_open_pid(p.pid));
    if (fds.back().valid()) pidfd_signal(fds.back().get(), SIGTERM);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(hurry() ? 0 : grace_ms);
  for (auto& fd : fds) {
    if (!fd.valid()) continue;
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (!pidfd_wait_exit(fd.get(), left > 0 ? static_cast<int>(left) : 0)) {
      pidfd_signal(fd.get(), SIGKILL);
      pidfd_wait_exit(fd.get(), 5000);
    }
  }
  return found;
}

}  // namespace vpnlab
