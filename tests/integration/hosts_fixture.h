// The hosts backend's root tests share this: emulated hosts (tests/support/emulated_hosts.h),
// a two-host topology on them, and vpnlab run as a user runs it, in the controller's namespace.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lab/base/fs_util.h"
#include "lab/base/process.h"
#include "root_test_support.h"
#include "tests/support/emulated_hosts.h"

namespace vpnlab::testing {

#define VPNLAB_REQUIRE_SSH()                  \
  do {                                        \
    VPNLAB_REQUIRE_ROOT();                    \
    VPNLAB_REQUIRE_PROGRAM("/usr/sbin/sshd"); \
    VPNLAB_REQUIRE_PROGRAM("ssh");            \
    VPNLAB_REQUIRE_PROGRAM("ssh-keygen");     \
  } while (0)

// Nodes a on h1 and b on h2, linked over the hosts' wire; `lab` names the namespaces.
inline std::string topology(const EmulatedHosts& eh, const std::string& lab, const std::string& products,
                            const std::string& agent = "") {
  return "[lab]\nname = \"" + lab + "\"\nbackend = \"hosts\"\n\n" + eh.hosts_toml(agent) +
         "[overlay]\nsubnet = \"10.77.0.0/24\"\nmtu = 1400\nport = 51820\n\n"
         "[[node]]\nname = \"a\"\nhost = \"h1\"\ncpus = [0]\nload_cpus = [0]\n\n"
         "[[node]]\nname = \"b\"\nhost = \"h2\"\ncpus = [1]\nload_cpus = [1]\n\n"
         "[[link]]\nname = \"wire\"\nnodes = [\"a\", \"b\"]\nsubnet = \"192.168.77.0/24\"\n\n"
         "[bench]\nproducts = [" +
         products +
         "]\nsamples = 2\nduration = \"2s\"\nwarmup = \"1s\"\n\n"
         "[[bench.test]]\nname = \"a-to-b\"\nclient = \"a\"\nserver = \"b\"\n";
}

struct Fixture {
  std::string dir;
  std::unique_ptr<EmulatedHosts> hosts;
};

inline Fixture start_hosts() {
  Fixture f;
  f.dir = make_temp_dir("hosts");
  auto eh = EmulatedHosts::start(f.dir);
  EXPECT_TRUE(eh.ok()) << (eh.ok() ? "" : eh.error().format());
  if (eh) f.hosts = std::move(*eh);
  return f;
}

// vpnlab as a user runs it, in the controller's namespace.
inline SpawnSpec controller_spec(const EmulatedHosts& eh, const std::vector<std::string>& args,
                                 const std::string& dir) {
  SpawnSpec s;
  s.argv = {VPNLAB_BINARY};
  with_test_history(&s);
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.netns_fd = eh.controller_netns_fd();
  s.stdout_path = dir + "/vpnlab.out";
  s.stderr_path = dir + "/vpnlab.err";
  return s;
}

inline CliOutcome run_controller(const EmulatedHosts& eh, const std::vector<std::string>& args,
                                 const std::string& dir) {
  SpawnSpec s = controller_spec(eh, args, dir);
  auto r = run_command(s, 280);
  CliOutcome o;
  if (r) o.status = r->exit_status;
  o.out = read_file(s.stdout_path);
  o.err = read_file(s.stderr_path);
  return o;
}

// Polls `done` until it holds or `seconds` pass.
inline bool wait_until(const std::function<bool()>& done, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

// A 30 s-per-sample run on the two hosts, returned once its first sample is under way.
inline std::unique_ptr<Child> start_run_until_mid_sample(const Fixture& f, const std::string& file) {
  SpawnSpec s = controller_spec(*f.hosts, {"run", file, "--duration", "30s", "--out", f.dir + "/results"}, f.dir);
  auto child = Child::spawn(s);
  EXPECT_TRUE(child.ok());
  if (!child) return nullptr;
  bool mid = wait_until(
      [&] {
        std::string run = run_dir_in(f.dir + "/results");
        return !run.empty() && std::filesystem::exists(run + "/raw");
      },
      60);
  EXPECT_TRUE(mid) << read_file(s.stderr_path);
  return mid ? std::move(*child) : nullptr;
}

}  // namespace vpnlab::testing
