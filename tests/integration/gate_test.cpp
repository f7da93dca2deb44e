// scripts/ci-gate.sh as CI runs it: the same build twice passes, a build slowed for real
// (the same binary held to a CPU quota in a cgroup) fails with the gate's message, and a
// build that cannot start fails as broken (exit 4).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>

#include "root_test_support.h"

namespace vpnlab::testing {
namespace {

namespace fs = std::filesystem;

CliOutcome gate(const std::string& base, const std::string& pr, const std::string& out_dir) {
  return run_program({"bash", VPNLAB_SOURCE_ROOT "/scripts/ci-gate.sh", "--product", "wireguard-go", "--base", base, "--pr", pr,
                      "--topology", VPNLAB_TOPOLOGIES "/quick.toml", "--threshold", "0.1", "--precision", "5%", "--max-time", "50s",
                      "--duration", "1s", "--out", out_dir, "--vpnlab", VPNLAB_BINARY},
                     {}, 280);
}

// Where this machine's cgroup CPU controller is (v2 unified, or v1 "cpu"), or "".
std::string cpu_cgroup_root() {
  if (fs::exists("/sys/fs/cgroup/cgroup.controllers")) {
    std::ifstream in("/sys/fs/cgroup/cgroup.subtree_control");
    std::string controllers((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return controllers.find("cpu") != std::string::npos ? "/sys/fs/cgroup" : "";
  }
  return fs::exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") ? "/sys/fs/cgroup/cpu" : "";
}

// A cgroup holding its processes to 25 % of one CPU, made here on the host; "" if it
// cannot be made.
std::string make_quota_cgroup(const std::string& cgroup_root) {
  std::string cg = cgroup_root + "/vpnlab-gate-slow-" + std::to_string(getpid());
  if (mkdir(cg.c_str(), 0755) != 0 && errno != EEXIST) return "";
  const bool v2 = cgroup_root == "/sys/fs/cgroup";
  if (v2) std::ofstream(cg + "/cpu.max") << "25000 100000\n";
  else std::ofstream(cg + "/cpu.cfs_quota_us") << "25000\n";
  return cg;
}

// A copy of wireguard-go slowed for real: a wrapper that moves itself into the quota cgroup,
// then execs the real binary (same pid, so the lab stops it as usual). A node's mount
// namespace has its own /sys, so the cgroup is reached through this test process's root
// (/proc/PID/root: the host's mounts; init's is not readable in every container).
std::string slowed_wireguard_go(const std::string& dir, const std::string& cgroup) {
  std::string path = dir + "/wireguard-go-slow";
  std::ofstream(path) << "#!/bin/sh\n"
                      << "echo $$ > /proc/" << getpid() << "/root" << cgroup << "/cgroup.procs || exit 1\n"
                      << "exec " << find_program("wireguard-go") << " \"$@\"\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

// The cgroups the slowed copies made, removed once their processes are gone.
void remove_gate_cgroups(const std::string& cgroup_root) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(cgroup_root, ec))
    if (e.path().filename().string().rfind("vpnlab-gate-slow-", 0) == 0) rmdir(e.path().c_str());
}

TEST(Gate, TheSameBuildTwicePasses) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  const std::string wg = find_program("wireguard-go");
  std::string out = make_temp_dir("gate-same");
  CliOutcome o = gate(wg, wg, out);
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("ci-gate: pass: wireguard-go@pr is not slower than @base by more than 0.1"), std::string::npos) << o.out;
  std::string run = run_dir_in(out);
  EXPECT_NE(read_file(run + "/gate.md").find("| wireguard-go@base -> @pr | a-to-b |"), std::string::npos) << read_file(run + "/gate.md");
  EXPECT_NE(read_file(run + "/gate.md").find("sampling: "), std::string::npos);
}

TEST(Gate, ABuildSlowedByACpuQuotaFailsTheGate) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  const std::string cgroup_root = cpu_cgroup_root();
  if (cgroup_root.empty()) GTEST_SKIP() << "no cgroup CPU controller here: no CPU quota to slow a build with";
  std::string cgroup = make_quota_cgroup(cgroup_root);
  ASSERT_FALSE(cgroup.empty()) << "cannot make a cgroup in " << cgroup_root << ": " << strerror(errno);
  std::string slow = slowed_wireguard_go(make_temp_dir("gate-bin"), cgroup);
  std::string out = make_temp_dir("gate-slow");
  CliOutcome o = gate(find_program("wireguard-go"), slow, out);
  remove_gate_cgroups(cgroup_root);
  EXPECT_EQ(o.status, 3) << o.out << o.err;
  EXPECT_NE(o.err.find("ci-gate: FAIL: wireguard-go@pr is slower than @base by more than 0.1, or costlier beyond a cost threshold"), std::string::npos)
      << o.err;
  EXPECT_NE(read_file(run_dir_in(out) + "/gate.md").find("**fails**"), std::string::npos);
}

TEST(Gate, ABuildThatCannotStartIsBroken) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string dir = make_temp_dir("gate-broken-bin");
  std::string broken = dir + "/wireguard-go-broken";
  std::ofstream(broken) << "#!/bin/sh\necho 'this build cannot start' >&2\nexit 1\n";
  fs::permissions(broken, fs::perms::owner_all);
  std::string out = make_temp_dir("gate-broken");
  CliOutcome o = gate(find_program("wireguard-go"), broken, out);
  EXPECT_EQ(o.status, 4) << o.out << o.err;
  EXPECT_NE(o.err.find("ci-gate: broken: a build of wireguard-go produced no valid row"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace vpnlab::testing
