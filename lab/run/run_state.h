// What a run has on the machine, written before it creates anything, so that
// `vpnlab cleanup` (or `down`) can find it after a crash; plus the lock against two runs.
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

inline constexpr const char* kStateDir = "/run/vpnlab";
// kStateDir, or $VPNLAB_STATE_DIR (unit tests run the runner on a fake backend without
// root; two labs that must not share a lock use different ones).
std::string state_dir();

struct RunState {
  std::string run_id;
  std::string lab;
  std::string topology_file;
  std::string run_dir;
  int pid = 0;
  bool kept = false;  // made by `vpnlab up`: stays until `vpnlab down`
  std::vector<std::string> namespaces;
  std::string backend = "netns";  // a kept lab's: `exec` reaches its nodes by it
};

std::string state_path(const std::string& run_id);
Status write_state(const RunState& state);  // atomic (write + rename)
Result<RunState> read_state(const std::string& path);
std::vector<RunState> list_states();
Status remove_state(const std::string& run_id);

// An exclusive flock on /run/vpnlab/lock: the kernel drops it when its holder dies, so a
// crashed run never leaves a stale lock. The error names the holder's pid.
class RunLock {
 public:
  static Result<RunLock> acquire();

 private:
  UniqueFd fd_;
};

}  // namespace vpnlab
