// The processes an agent started, by the ids it gave them: the "wait", "stop", "reap" and
// "status" answers both agents give (the guest's lab/backends/vm/agent_main.cpp, a host's
// lab/backends/hosts/host_agent.cpp). Each caller reads the id from its request as it always has.
#pragma once
#include <sys/types.h>

#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "lab/base/process.h"

namespace vpnlab {

class AgentChildren {
 public:
  int add(std::unique_ptr<NodeProcess> p);
  // Waits at most min(timeout_ms, 1000): the agent serves one request at a time, the
  // controller repeats. An exited process is forgotten once its status is given.
  nlohmann::json wait(int id, int timeout_ms);
  // TERM, grace, KILL; an unknown id is already gone, which is success.
  nlohmann::json stop(int id, int grace_ms);
  // Those that exited since the last call, with their status.
  nlohmann::json reap();
  nlohmann::json status(int id);
  nlohmann::json cpu(int id);  // its CPU seconds so far
  void stop_all(int grace_ms);
  std::set<pid_t> pids() const;

 private:
  std::map<int, std::unique_ptr<NodeProcess>> children_;
  int next_id_ = 1;
};

}  // namespace vpnlab
