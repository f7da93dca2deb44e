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
#include "slowdown.h"

namespace vpnlab::testing {
namespace {

namespace fs = std::filesystem;

CliOutcome gate(const std::string& base, const std::string& pr, const std::string& out_dir) {
  return run_program({"bash",        VPNLAB_SOURCE_ROOT "/scripts/ci-gate.sh",
                      "--product",   "wireguard-go",
                      "--base",      base,
                      "--pr",        pr,
                      "--topology",  VPNLAB_TOPOLOGIES "/quick.toml",
                      "--threshold", "0.1",
                      "--precision", "5%",
                      "--max-time",  "50s",
                      "--duration",  "1s",
                      "--out",       out_dir,
                      "--vpnlab",    VPNLAB_BINARY},
                     {}, 280);
}

TEST(Gate, TheSameBuildTwicePasses) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  const std::string wg = find_program("wireguard-go");
  std::string out = make_temp_dir("gate-same");
  CliOutcome o = gate(wg, wg, out);
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("ci-gate: pass: wireguard-go@pr is not slower than @base by more than 0.1"), std::string::npos)
      << o.out;
  std::string run = run_dir_in(out);
  EXPECT_NE(read_file(run + "/gate.md").find("| wireguard-go@base -> @pr | a-to-b |"), std::string::npos)
      << read_file(run + "/gate.md");
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
  EXPECT_NE(
      o.err.find(
          "ci-gate: FAIL: wireguard-go@pr is slower than @base by more than 0.1, or costlier beyond a cost threshold"),
      std::string::npos)
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
