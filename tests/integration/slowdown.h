// A product build slowed for real, for tests that must see a regression: a wrapper that puts
// the real binary into a cgroup held to 25 % of one CPU (the gate and the history tests).
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "root_test_support.h"

namespace vpnlab::testing {

// Where this machine's cgroup CPU controller is (v2 unified, or v1 "cpu"), or "".
inline std::string cpu_cgroup_root() {
  if (std::filesystem::exists("/sys/fs/cgroup/cgroup.controllers")) {
    std::ifstream in("/sys/fs/cgroup/cgroup.subtree_control");
    std::string controllers((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return controllers.find("cpu") != std::string::npos ? "/sys/fs/cgroup" : "";
  }
  return std::filesystem::exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") ? "/sys/fs/cgroup/cpu" : "";
}

// A cgroup holding its processes to 25 % of one CPU, made here on the host; "" if it
// cannot be made.
inline std::string make_quota_cgroup(const std::string& cgroup_root) {
  std::string cg = cgroup_root + "/vpnlab-gate-slow-" + std::to_string(getpid());
  if (mkdir(cg.c_str(), 0755) != 0 && errno != EEXIST) return "";
  const bool v2 = cgroup_root == "/sys/fs/cgroup";
  if (v2)
    std::ofstream(cg + "/cpu.max") << "25000 100000\n";
  else
    std::ofstream(cg + "/cpu.cfs_quota_us") << "25000\n";
  return cg;
}

// A copy of wireguard-go slowed for real: a wrapper that moves itself into the quota cgroup,
// then execs the real binary (same pid, so the lab stops it as usual). A node's mount
// namespace has its own /sys, so the cgroup is reached through this test process's root
// (/proc/PID/root: the host's mounts; init's is not readable in every container).
inline std::string slowed_wireguard_go(const std::string& dir, const std::string& cgroup) {
  std::string path = dir + "/wireguard-go-slow";
  std::ofstream(path) << "#!/bin/sh\n"
                      << "echo $$ > /proc/" << getpid() << "/root" << cgroup << "/cgroup.procs || exit 1\n"
                      << "exec " << find_program("wireguard-go") << " \"$@\"\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

// The cgroups the slowed copies made, removed once their processes are gone.
inline void remove_gate_cgroups(const std::string& cgroup_root) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(cgroup_root, ec))
    if (e.path().filename().string().rfind("vpnlab-gate-slow-", 0) == 0) rmdir(e.path().c_str());
}

}  // namespace vpnlab::testing
