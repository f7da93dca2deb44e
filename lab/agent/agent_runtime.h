// A NodeRuntime whose nodes are run by agents (the guests' and the hosts'): the node
// operations are the agents' op table (node_ops.h), sent to the agent that runs the node,
// with errors naming where. A backend gives the agent and the words; what differs (spawn,
// routes, CPU, teardown) it implements itself.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lab/agent/node_ops.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

class AgentRuntime : public NodeRuntime {
 public:
  Status wait_for_link(const std::string& node, const std::string& ifname, double timeout_s,
                       int interrupt_fd) override {
    return in(node, ops(node).wait_for_link(ifname, timeout_s, interrupt_fd));
  }
  Status create_link_of_kind(const std::string& node, const std::string& ifname, const std::string& kind,
                             const LinkOptions& options) override {
    return in(node, ops(node).create_link(ifname, kind, options));
  }
  Status delete_link(const std::string& node, const std::string& ifname) override {
    return in(node, ops(node).delete_link(ifname));
  }
  Status set_sysctls(const std::string& node, const Sysctls& settings) override {
    return in(node, ops(node).set_sysctls(settings));
  }
  Status configure_link(const std::string& node, const std::string& ifname, const HostAddr& addr, int mtu) override {
    return in(node, ops(node).configure_link(ifname, addr, mtu));
  }
  Result<LinkInfo> get_link(const std::string& node, const std::string& ifname) override {
    return in(node, ops(node).get_link(ifname));
  }
  Status ping(const std::string& node, Ipv4Addr target, double timeout_s, int interrupt_fd, int payload,
              bool df) override {
    return in(node, ops(node).ping(target, timeout_s, interrupt_fd, payload, df));
  }
  Status wait_tcp_listening(const std::string& node, int port, double timeout_s, int interrupt_fd) override {
    return in(node, ops(node).wait_tcp_listening(port, timeout_s, interrupt_fd));
  }
  Status set_rps(const std::string& node, const std::vector<std::string>& ifnames,
                 const std::vector<int>& cpus) override {
    return in(node, ops(node).set_rps(ifnames, cpus));
  }
  Status set_offloads(const std::string& node, const std::string& ifname, bool on) override {
    return in(node, ops(node).set_offloads(ifname, on));
  }
  // Where the node runs: the echoes and the watch start there and cross its wire and tunnel.
  Result<std::unique_ptr<LatencyProbe>> latency_probe(const std::string& node, Ipv4Addr target, int interval_ms,
                                                      int count) override {
    return in(node, ops(node).latency_probe(target, interval_ms, count));
  }
  Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string& node, const std::string& ifname,
                                                      const std::string& pattern, int port) override {
    return in(node, ops(node).payload_watch(ifname, pattern, port));
  }

 protected:
  // The agent that runs `node`, and how an error names it ("guest 'a'", "node 'a' on host 'h1'").
  virtual AgentClient& agent_of(const std::string& node) = 0;
  virtual std::string where(const std::string& node) const = 0;

  NodeOpsClient ops(const std::string& node) { return NodeOpsClient(agent_of(node), node); }
  template <typename T>
  Result<T> in(const std::string& node, Result<T> r) const {
    if (!r) return with_context(r.error(), where(node));
    return r;
  }
};

}  // namespace vpnlab
