// A process started through an agent (a guest's, or a host's over ssh), as a NodeProcess:
// its exit is an eventfd that AgentProcesses signals once the agent reports the exit. Agent
// channels carry no unsolicited events, so a watcher thread asks each agent with running
// processes ten times a second ("reap").
#pragma once
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "lab/agent/agent_client.h"
#include "lab/base/process.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

class AgentProcesses;

class AgentProcess : public NodeProcess {
 public:
  // `on_exit`: runs once it has exited, before that is signalled (the hosts backend fetches
  // its output files there).
  AgentProcess(AgentProcesses* owner, AgentClient* agent, int id, std::string name, std::function<void()> on_exit = {});
  ~AgentProcess() override;
  const std::string& name() const override { return name_; }
  bool running() override { return !exited_; }
  int exit_fd() const override { return efd_.get(); }
  bool wait_exit(int timeout_ms, int interrupt_fd, bool* interrupted) override;
  int exit_status() const override { return status_; }
  bool stop(int grace_ms) override;
  pid_t host_pid() const override { return 0; }  // not in this machine's /proc
  ProcStatus status() override;                  // asks the agent (zeros once exited or if it cannot tell)
  double cpu_seconds() override;                 // the same

  void exited(int status);
  int id() const { return id_; }
  AgentClient* agent() const { return agent_; }

 private:
  AgentProcesses* owner_;
  AgentClient* agent_;
  int id_;
  std::string name_;
  std::function<void()> on_exit_;
  UniqueFd efd_;
  std::atomic<bool> exited_{false};
  std::atomic<int> status_{-1};
};

// Every process started through a set of agents, and the thread that learns of their exits.
class AgentProcesses {
 public:
  AgentProcesses();
  ~AgentProcesses();  // stops the watcher
  // Spawns through `agent`; `spec` as for Child (cpus in the agent's numbering).
  Result<std::unique_ptr<NodeProcess>> spawn(AgentClient& agent, const AgentClient::Spawn& spec,
                                             const std::string& where, std::function<void()> on_exit = {});
  void forget(AgentProcess* p);
  // "agent X: process Y still tracked" for each process not yet ended.
  std::vector<std::string> still_tracked(const std::string& what) const;
  void stop_watching();

 private:
  void watch();
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::map<AgentClient*, std::map<int, AgentProcess*>> tracked_;
  std::thread watcher_;
};

}  // namespace vpnlab
