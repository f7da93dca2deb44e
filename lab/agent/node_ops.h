// The node operations both agents serve — the guest's agent for its one node, a host's agent
// for the nodes on its host — as one table. The agent side (serve_node_op) and the
// controller's side (NodeOpsClient) are written from the same names and fields in
// node_ops.cpp, so the two agents cannot drift apart again (they once called one operation
// `link` and the other `configure`). What each agent adds of its own (a guest's NIC setup
// and power-off; a host's build, teardown and file mirror) stays in that agent.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/agent/agent_children.h"
#include "lab/agent/agent_client.h"
#include "lab/agent/agent_probes.h"
#include "lab/base/ipv4.h"
#include "lab/base/link_options.h"
#include "lab/base/process.h"
#include "lab/runtime/measurements.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

// How an agent does each operation on the machine it runs on. The guest's agent answers
// with netlink in its own namespace; a host's with the netns runtime that built its part.
class AgentNode {
 public:
  virtual ~AgentNode() = default;
  // Fails when this agent does not run `node`.
  virtual Status has_node(const std::string& node) = 0;
  virtual Result<std::unique_ptr<NodeProcess>> spawn(const std::string& node, SpawnSpec spec, bool private_run) = 0;
  virtual Status wait_for_link(const std::string& node, const std::string& ifname, double timeout_s) = 0;
  virtual Status create_link(const std::string& node, const std::string& ifname, const std::string& kind,
                             const LinkOptions& options) = 0;
  virtual Status delete_link(const std::string& node, const std::string& ifname) = 0;
  virtual Status set_sysctls(const std::string& node, const Sysctls& settings) = 0;
  virtual Status configure_link(const std::string& node, const std::string& ifname, const HostAddr& addr, int mtu) = 0;
  virtual Result<LinkInfo> get_link(const std::string& node, const std::string& ifname) = 0;
  virtual Status ping(const std::string& node, Ipv4Addr target, double timeout_s, int payload, bool df) = 0;
  virtual Status wait_tcp_listening(const std::string& node, int port, double timeout_s) = 0;
  virtual Status set_rps(const std::string& node, const std::vector<std::string>& ifnames,
                         const std::vector<int>& cpus) = 0;
  virtual Status set_offloads(const std::string& node, const std::string& ifname, bool on) = 0;
  // A null probe or watch: this machine has none (the controller gets id 0).
  virtual Result<std::unique_ptr<LatencyProbe>> latency_probe(const std::string& node, Ipv4Addr target, int interval_ms,
                                                              int count) = 0;
  virtual Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string& node, const std::string& ifname,
                                                              const std::string& pattern, int port) = 0;
};

// What an agent keeps between requests: the processes it started and the probes it runs.
struct AgentState {
  AgentChildren children;
  AgentProbes probes;
};

// The answer to `req` when its "op" is in the table; nullopt when it is not (the agent's own
// operations). A missing or mistyped field throws nlohmann::json's exception: the agent
// answers "malformed request" and lives on.
std::optional<nlohmann::json> serve_node_op(AgentNode& machine, AgentState& state, const nlohmann::json& req);

// The table's operation names, in its order (tests; the "unknown op" hint).
std::vector<std::string> node_op_names();

// The controller's side: each operation as the table's request, to the agent that runs
// `node`. Errors come without context: the runtime adds which guest or host it was.
class NodeOpsClient {
 public:
  NodeOpsClient(AgentClient& agent, std::string node) : agent_(agent), node_(std::move(node)) {}
  // The waits take the run's interrupt: Ctrl-C ends them without waiting out timeout_s.
  Status wait_for_link(const std::string& ifname, double timeout_s, int interrupt_fd);
  Status create_link(const std::string& ifname, const std::string& kind, const LinkOptions& options);
  Status delete_link(const std::string& ifname);
  Status set_sysctls(const Sysctls& settings);
  Status configure_link(const std::string& ifname, const HostAddr& addr, int mtu);
  Result<LinkInfo> get_link(const std::string& ifname);
  Status ping(Ipv4Addr target, double timeout_s, int interrupt_fd, int payload, bool df);
  Status wait_tcp_listening(int port, double timeout_s, int interrupt_fd);
  Status set_rps(const std::vector<std::string>& ifnames, const std::vector<int>& cpus);
  Status set_offloads(const std::string& ifname, bool on);
  Result<std::unique_ptr<LatencyProbe>> latency_probe(Ipv4Addr target, int interval_ms, int count);
  Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string& ifname, const std::string& pattern, int port);

 private:
  Result<nlohmann::json> call(const char* op, nlohmann::json fields, double timeout_s, int interrupt_fd = -1);
  AgentClient& agent_;
  std::string node_;
};

}  // namespace vpnlab
