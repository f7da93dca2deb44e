// The controller's connection to one host: ssh running the host's agent, the agent's
// hello, and what the checks before a build learnt. Shared by the runtime and by the verbs
// that only ask the hosts (doctor, cleanup).
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/agent/agent_client.h"
#include "lab/backends/hosts/file_mirror.h"
#include "lab/backends/hosts/hosts_runtime.h"
#include "lab/backends/hosts/ssh_channel.h"
#include "lab/model/plan.h"

namespace vpnlab {

struct HostLink {
  PlanHost host;
  SshChannel channel;
  std::unique_ptr<AgentClient> agent;
  nlohmann::json hello;
  std::vector<uint64_t> inodes;        // of the namespaces its agent built
  std::shared_ptr<FileMirror> mirror;  // shared with the exit hooks of the processes it serves  // set when the host
                                       // does not see this machine's run directory
};

struct HostPool {
  std::map<std::string, std::unique_ptr<HostLink>> idle;  // host -> its agent, between rounds
  std::map<std::string, nlohmann::json> learnt;           // host -> NIC facts and products' versions
  std::set<std::string> told_mirror;                      // hosts whose file copying was announced
  ~HostPool();
};

// ssh to the host and hello: the connection works, the agent is there and of this version.
Result<std::unique_ptr<HostLink>> connect_host(const PlanHost& h, const std::string& default_agent,
                                               const std::string& log_dir);
// What environment.json and doctor record of a host: its hello (kernel, CPU, boot id,
// agent version), the NIC facts and product versions its checks added, name, ssh, nic.
nlohmann::json host_facts(const HostLink& h);
// Closing the socket is the agent's EOF: it exits (tearing down what it built), and so does ssh.
void close_links(std::vector<std::unique_ptr<HostLink>>& hosts);
// The last non-empty line of ssh's log: what ssh said when it failed or ended.
std::string ssh_last_line(const std::string& log_path);
// Connects to every host of the plan that has nodes and has each check its part; nothing
// is made anywhere until all of them agree.
Result<std::vector<std::unique_ptr<HostLink>>> connect_and_check(const Plan& plan, const HostsOptions& opts,
                                                                 const std::string& log_dir);

}  // namespace vpnlab
