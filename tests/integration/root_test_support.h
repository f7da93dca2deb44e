// Helpers for tests that need root and real namespaces; they skip themselves otherwise.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "lab/plan.h"
#include "lab/process.h"
#include "lab/topology.h"
#include "netns/live_topology.h"
#include "netns/namespace.h"
#include "netns/pidfd.h"

#define VPNLAB_REQUIRE_ROOT()                                                     \
  do {                                                                            \
    if (geteuid() != 0) GTEST_SKIP() << "needs root (creates network namespaces)"; \
  } while (0)

#define VPNLAB_REQUIRE_PROGRAM(name)                                                                    \
  do {                                                                                                  \
    if (vpnlab::find_program(name).empty()) GTEST_SKIP() << "'" << name << "' is not installed: skipped"; \
  } while (0)

namespace vpnlab::testing {

inline std::string unique_tag() {
  std::random_device rd;
  char buf[8];
  snprintf(buf, sizeof buf, "t%04x", rd() & 0xffff);
  return buf;
}

inline Plan plan_for(const std::string& topology_file, PlanOptions opts = {}) {
  auto topo = load_topology(topology_file);
  EXPECT_TRUE(topo.ok()) << (topo.ok() ? "" : topo.error().format());
  if (opts.tag.empty()) opts.tag = unique_tag();
  if (opts.run_id.empty()) opts.run_id = "test-" + opts.tag;
  auto plan = make_plan(topo.value(), opts);
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().format());
  return plan.value();
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

// Nothing of the plan remains: no namespace file, no inode referenced, no process inside.
inline void expect_nothing_left(const Plan& plan, const std::vector<uint64_t>& inodes) {
  EXPECT_TRUE(list_namespaces(plan.ns_prefix).empty()) << "namespace files left in /run/netns";
  auto holders = namespace_holders(inodes);
  EXPECT_TRUE(holders.empty()) << "still referenced by " << (holders.empty() ? "" : holders.front());
  EXPECT_TRUE(processes_in_namespaces(inodes).empty());
}

}  // namespace vpnlab::testing
