// Helpers for tests that need root and real namespaces; they skip themselves otherwise.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "../temp_paths.h"
#include "lab/app/run_outputs.h"
#include "lab/backends/netns/live_topology.h"
#include "lab/backends/netns/netns_runtime.h"
#include "lab/base/pidfd.h"
#include "lab/base/process.h"
#include "lab/kernel/namespace.h"
#include "lab/model/plan.h"
#include "lab/model/topology.h"
#include "lab/run/product_tunnels.h"
#include "lab/run/runner.h"

#define VPNLAB_REQUIRE_ROOT()                                                      \
  do {                                                                             \
    if (geteuid() != 0) GTEST_SKIP() << "needs root (creates network namespaces)"; \
  } while (0)

#define VPNLAB_REQUIRE_PROGRAM(name)                                                                      \
  do {                                                                                                    \
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

// Two nodes on one link, each on its own CPU, as in quick.toml: the lab part of a topology.
// `lab_extra` goes into [lab] (e.g. a backend); the link's table is last, open for keys.
inline std::string two_pinned_nodes(const std::string& lab_name, const std::string& lab_extra = "") {
  return "[lab]\nname = \"" + lab_name + "\"\n" + lab_extra + R"([overlay]
subnet = "10.77.0.0/24"
mtu = 1400
[[node]]
name = "a"
cpus = [0]
load_cpus = [0]
[[node]]
name = "b"
cpus = [1]
load_cpus = [1]
[[link]]
name = "lan"
nodes = ["a", "b"]
subnet = "192.168.77.0/24"
)";
}

// The run directory under `out` (there is one), or "" while there is none.
inline std::string run_dir_in(const std::string& out) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(out, ec))
    if (e.is_directory()) return e.path().string();
  return "";
}

// What a program run to its end did: exit status, stdout, stderr.
struct CliOutcome {
  int status = -1;
  std::string out, err;
};

// The tests' history file (tests/CMakeLists.txt sets VPNLAB_HISTORY for them): every
// program a test starts gets it (a spawned program's environment is PATH, LANG, HOME and
// what it is given), so no run a test makes lands in the machine's history.
inline void with_test_history(SpawnSpec* s) {
  if (const char* h = std::getenv("VPNLAB_HISTORY")) s->env.emplace("VPNLAB_HISTORY", h);
}

// A program run to completion (at most `timeout_s`), `env` added to its environment.
inline CliOutcome run_program(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
                              double timeout_s = 240) {
  std::string dir = make_temp_dir("cli");
  SpawnSpec s;
  s.argv = argv;
  s.env = env;
  with_test_history(&s);
  s.stdout_path = dir + "/out";
  s.stderr_path = dir + "/err";
  auto r = run_command(s, timeout_s);
  CliOutcome o;
  if (r) o.status = r->exit_status;
  o.out = read_file(s.stdout_path);
  o.err = read_file(s.stderr_path);
  return o;
}

// The vpnlab binary as a user runs it (with `env` added).
inline CliOutcome vpnlab_cli(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> argv = {VPNLAB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, env);
}

// A process as /proc shows it now: its pid and start time (field 22 of stat, clock ticks
// since boot), so that a reused pid is another process; {pid, 0} when it is gone.
inline std::pair<int, unsigned long long> process_identity(const std::string& pid) {
  const std::string stat = read_file("/proc/" + pid + "/stat");
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos) return {std::atoi(pid.c_str()), 0};
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  return {std::atoi(pid.c_str()), std::strtoull(field.c_str(), nullptr, 10)};
}

// Every process that was running when this test program began: another lab, a user's own
// wireguard-go or tailscaled. The suite checks only what started after it (what its own
// labs made) and never signals one of these (scripts/with-decoys.sh runs it beside two).
inline const std::set<std::pair<int, unsigned long long>>& processes_before_suite() {
  static const std::set<std::pair<int, unsigned long long>> before = [] {
    std::set<std::pair<int, unsigned long long>> out;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") == std::string::npos) out.insert(process_identity(name));
    }
    return out;
  }();
  return before;
}
// Taken as the program starts, before any test runs.
inline const bool kProcessesBeforeSuiteTaken = !processes_before_suite().empty();

// Pids of the running processes named `comm` that this suite started. A zombie (dead,
// waiting for PID 1 to reap it after vpnlab was killed) runs nothing and holds no namespace:
// not counted; nor is a process that ran before the suite began.
inline std::vector<pid_t> pids_named(const std::string& comm) {
  std::vector<pid_t> pids;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_file(e.path().string() + "/comm") != comm + "\n") continue;
    std::string stat = read_file(e.path().string() + "/stat");
    auto paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') continue;
    if (processes_before_suite().count(process_identity(name))) continue;
    pids.push_back(std::stoi(name));
  }
  return pids;
}

// Nothing of the plan remains: no namespace file, no inode referenced, no process inside.
inline void expect_nothing_left(const Plan& plan, const std::vector<uint64_t>& inodes) {
  EXPECT_TRUE(list_namespaces(plan.ns_prefix).empty()) << "namespace files left in /run/netns";
  auto holders = namespace_holders(inodes);
  EXPECT_TRUE(holders.empty()) << "still referenced by " << (holders.empty() ? "" : holders.front());
  EXPECT_TRUE(processes_in_namespaces(inodes).empty());
}

// A products/ folder holding a copy of shipped product `base` renamed to `name`, with the
// text `from` in its product.toml replaced by `to` (a deliberately broken variant).
inline std::string product_variant(const std::string& base, const std::string& name, const std::string& from,
                                   const std::string& to) {
  std::string products = make_temp_dir("variant");
  std::string cmd = "cp -r " VPNLAB_PRODUCTS_DIR "/" + base + " " + products + "/" + name;
  EXPECT_EQ(system(cmd.c_str()), 0);
  std::string spec = read_file(products + "/" + name + "/product.toml");
  std::string old_name = "name = \"" + base + "\"";
  EXPECT_NE(spec.find(old_name), std::string::npos);
  EXPECT_NE(spec.find(from), std::string::npos) << from;
  spec.replace(spec.find(old_name), old_name.size(), "name = \"" + name + "\"");
  spec.replace(spec.find(from), from.size(), to);
  std::ofstream(products + "/" + name + "/product.toml") << spec;
  return products;
}

// `spec` brought up on a new netns topology of `plan` (*topo gets it), tried once more on a
// new topology if the bring-up fails, as the runner does: wireguard-go now and then exits
// with "Failed to listen on uapi socket: no such file or directory" (about once in five
// runs of one test here). Tests of what comes after bring-up should not fail on that.
inline Result<std::unique_ptr<ProductTunnels>> start_session(const Plan& plan, const Plan& vpn_plan,
                                                             const ProductSpec& spec,
                                                             const std::map<std::string, X25519KeyPair>& keys,
                                                             const std::string& dir,
                                                             std::unique_ptr<NodeRuntime>* topo) {
  Result<std::unique_ptr<ProductTunnels>> session = make_error("not started");
  for (int attempt = 0; attempt < 2 && !session; ++attempt) {
    if (*topo) (void)(*topo)->teardown(10);
    auto built = build_netns_runtime(plan, dir, -1);
    if (!built) return built.error();
    *topo = std::move(built.value());
    session = ProductTunnels::start({&vpn_plan, topo->get(), &spec, &keys, dir, -1, {}});
    if (!session && attempt == 0)
      std::cerr << "bring-up failed, trying once more on a new topology:\n" << session.error().format() << "\n";
  }
  return session;
}

// A short real run (topologies/quick.toml unless told): `samples` samples of 1 s, no warm-up.
struct ShortRun {
  Plan plan;
  std::string run_dir;
  Result<RunReport> report = make_error("not run");
  RunOutputs outputs;  // summary, audit and report, written after the run as the CLI does
};

inline ShortRun short_run(const std::vector<std::string>& products,
                          const std::string& products_dir = VPNLAB_PRODUCTS_DIR, int samples = 1,
                          const std::string& topology = VPNLAB_TOPOLOGIES "/quick.toml", bool interleave = true,
                          RuntimeFactory build_nodes = {}, double warmup_s = 0) {
  ShortRun r;
  PlanOptions o;
  o.products = products;
  o.samples = samples;
  o.duration_s = 1;
  r.plan = plan_for(topology, o);
  r.plan.warmup_s = warmup_s;
  r.plan.interleave = interleave;
  RunOptions ro;
  ro.run_dir = make_temp_dir("run") + "/" + r.plan.run_id;
  ro.products_dir = products_dir;
  ro.build_nodes = build_nodes ? std::move(build_nodes) : RuntimeFactory(build_netns_runtime);
  r.run_dir = ro.run_dir;
  r.report = run_bench(r.plan, ro);
  if (r.report) r.outputs = write_run_outputs(r.plan, r.run_dir, *r.report);
  return r;
}

}  // namespace vpnlab::testing
