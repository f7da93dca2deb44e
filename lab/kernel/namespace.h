// Network namespaces owned by the lab: created on a dedicated thread with
// unshare(CLONE_NEWNET), pinned by a bind mount in /run/netns (so `ip netns` and
// `vpnlab cleanup` see them) and held by fd; one netlink socket each.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"
#include "lab/kernel/netlink.h"

namespace vpnlab {

inline constexpr const char* kNetnsDir = "/run/netns";

struct Netns {
  std::string name;
  UniqueFd fd;                                 // /run/netns/<name>, opened
  uint64_t inode = 0;                          // recorded at creation: proves later that the kernel let go of it
  NlSock sock;                                 // route socket inside the namespace
  UniqueFd mntns;                              // private mount namespace of the node (own /run, own /sys); lazy
  std::map<std::string, std::string> sysctls;  // what was set, read back
};

struct NetnsRequest {
  std::string name;
  std::vector<std::pair<std::string, std::string>> sysctls;  // "net/ipv4/..." -> value
  // Not pinned in /run/netns: held only by the returned fds, gone when they close (a
  // scratch namespace for probes, which must leave nothing even if vpnlab is killed).
  bool anonymous = false;
};

// Creates every namespace in order on one dedicated thread (a worker thread's own netns
// is what /proc/thread-self/ns/net names; /proc/self would name the host's).
// On failure, the ones already made are removed again.
Result<std::vector<Netns>> create_namespaces(const std::vector<NetnsRequest>& requests);

// Removes the bind mount and file. Already gone counts as success.
Status remove_namespace_file(const std::string& name);

// Opens /run/netns/<name> for an existing namespace.
Result<Netns> open_namespace(const std::string& name);

// Names in /run/netns starting with `prefix`.
std::vector<std::string> list_namespaces(const std::string& prefix);

// Runs `fn` on a short-lived thread that has joined the namespace `netns_fd`
// (sockets it creates stay in that namespace).
Status run_in_netns(int netns_fd, const std::function<void()>& fn);

// A mount namespace for processes of one node: private propagation, a fresh tmpfs on
// /run (per-node control sockets and pid files), sysfs of the node's netns on /sys.
Result<UniqueFd> create_node_mount_ns(int netns_fd);

uint64_t inode_of(int fd);

// Paths of the files and directories inside a node mount namespace's private /run.
Result<std::vector<std::string>> files_in_private_run(int mntns_fd);

// Runs `fn` on a fresh thread inside a node's mount namespace (its private /run and
// /sys) and, unless netns_fd is -1, its network namespace.
Status run_in_node(int netns_fd, int mntns_fd, const std::function<void()>& fn);

// What still refers to a namespace inode: "pid 123 (iperf3)", "fd 7 of pid 9", "mount in
// pid 10's mount namespace". Empty when the kernel holds no user reference any more.
std::vector<std::string> namespace_holders(const std::vector<uint64_t>& inodes);

// Bounded probe loop (no event exists for "namespace freed") until no holder remains.
Status wait_namespaces_released(const std::vector<uint64_t>& inodes, double timeout_s);

// Ends every process in `namespaces`, removes them (already gone counts as success) and
// waits until the kernel has let go of each; the vector is empty afterwards.
Status remove_namespaces(std::vector<Netns>& namespaces, double timeout_s);

// After the last reference is gone the kernel destroys a namespace asynchronously, in its
// "netns" workqueue (its worker is named "kworker/...+netns" while it runs). Waits until
// that work has been idle for a few consecutive probes, so the next topology is not built
// while the kernel is still unregistering the previous one's devices.
Status wait_kernel_netns_cleanup(double timeout_s);

}  // namespace vpnlab
