// The node operations both agents serve: the controller's requests (NodeOpsClient,
// AgentClient) answered by the table (serve_node_op) over a real socket pair, with a fake
// machine at the OS boundary that records what it was asked.
#include <sys/socket.h>

#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "lab/agent/agent_probes.h"
#include "lab/agent/node_ops.h"

namespace vpnlab {
namespace {

using nlohmann::json;

class ExitedProcess : public NodeProcess {
 public:
  const std::string& name() const override { return name_; }
  bool running() override { return false; }
  int exit_fd() const override { return -1; }
  bool wait_exit(int, int, bool*) override { return true; }
  int exit_status() const override { return 3; }
  bool stop(int) override { return false; }
  pid_t host_pid() const override { return 0; }
  double cpu_seconds() override { return 1.5; }

 private:
  std::string name_ = "fake";
};

class FixedProbe : public LatencyProbe {
 public:
  Summary stop() override { return Summary{10, 9, 2, 0.5, 0.9, 1.0, {0.5}}; }
};

class FixedWatch : public PayloadWatch {
 public:
  Summary stop() override {
    Summary s;
    s.frames = 4;
    return s;
  }
};

// Records each call as "op node args"; "b" is the only node it runs.
class RecordingMachine : public AgentNode {
 public:
  std::vector<std::string> calls;
  Status has_node(const std::string& node) override {
    return node == "b" ? ok_status() : Status(make_error("node '" + node + "' is not on this host"));
  }
  Result<std::unique_ptr<NodeProcess>> spawn(const std::string& node, SpawnSpec spec, bool private_run) override {
    calls.push_back("spawn " + node + " " + spec.argv.at(0) + (private_run ? " private" : ""));
    return std::unique_ptr<NodeProcess>(new ExitedProcess);
  }
  Status wait_for_link(const std::string& node, const std::string& ifname, double timeout_s) override {
    return note("wait_link " + node + " " + ifname + " " + std::to_string(static_cast<int>(timeout_s)));
  }
  Status create_link(const std::string& node, const std::string& ifname, const std::string& kind,
                     const LinkOptions& o) override {
    return note("create_link " + node + " " + ifname + " " + kind + " " + std::to_string(o.if_id) + " " +
                std::to_string(o.vni) + " " + o.remote + " " + std::to_string(o.dstport));
  }
  Status delete_link(const std::string& node, const std::string& ifname) override {
    return note("delete_link " + node + " " + ifname);
  }
  Status set_sysctls(const std::string& node, const Sysctls& settings) override {
    return note("sysctl " + node + " " + settings.at(0).first + "=" + settings.at(0).second);
  }
  Status configure_link(const std::string& node, const std::string& ifname, const HostAddr& addr, int mtu) override {
    return note("configure " + node + " " + ifname + " " + addr.str() + " " + std::to_string(mtu));
  }
  Result<LinkInfo> get_link(const std::string& node, const std::string& ifname) override {
    calls.push_back("get_link " + node + " " + ifname);
    LinkInfo l;
    l.name = ifname;
    l.kind = "tun";
    l.mtu = 1420;
    return l;
  }
  Status ping(const std::string& node, Ipv4Addr target, double, int payload, bool df) override {
    return note("ping " + node + " " + target.str() + " " + std::to_string(payload) + (df ? " df" : ""));
  }
  Status wait_tcp_listening(const std::string& node, int port, double) override {
    return note("wait_listen " + node + " " + std::to_string(port));
  }
  Status set_rps(const std::string& node, const std::vector<std::string>& ifnames,
                 const std::vector<int>& cpus) override {
    return note("rps " + node + " " + ifnames.at(0) + " " + std::to_string(cpus.at(0)));
  }
  Status set_offloads(const std::string& node, const std::string& ifname, bool on) override {
    return note("offloads " + node + " " + ifname + (on ? " on" : " off"));
  }
  Result<std::unique_ptr<LatencyProbe>> latency_probe(const std::string& node, Ipv4Addr target, int interval_ms,
                                                      int count) override {
    calls.push_back("latency_start " + node + " " + target.str() + " " + std::to_string(interval_ms) + " x" +
                    std::to_string(count));
    return std::unique_ptr<LatencyProbe>(new FixedProbe);
  }
  Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string& node, const std::string& ifname,
                                                      const std::string& pattern, int port) override {
    calls.push_back("watch_start " + node + " " + ifname + " " + pattern + " " + std::to_string(port));
    if (ifname == "none") return std::unique_ptr<PayloadWatch>();  // as on a machine that has none
    return std::unique_ptr<PayloadWatch>(new FixedWatch);
  }

 private:
  Status note(std::string call) {
    calls.push_back(std::move(call));
    return ok_status();
  }
};

// An agent on the other end of a socket pair: the table, then "unknown op" as the agents say.
class LoopbackAgent {
 public:
  LoopbackAgent() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    client_ = AgentClient::over(UniqueFd(fds[0]), "on the test's agent");
    server_ = std::thread([this, fd = fds[1]] {
      JsonLines ch{UniqueFd(fd)};
      for (;;) {
        auto req = ch.receive(5000);
        if (!req) return;
        ops_seen.insert(req->value("op", ""));
        json r;
        try {
          auto served = serve_node_op(machine, state, *req);
          r = served ? *served : agent_failure(make_error("unknown op '" + req->value("op", "") + "'"));
        } catch (const std::exception& e) {
          r = agent_failure(make_error(std::string("malformed request: ") + e.what()));
        }
        if (req->contains("seq")) r["seq"] = (*req)["seq"];
        if (!ch.send(r)) return;
      }
    });
  }
  ~LoopbackAgent() {
    client_.reset();  // EOF ends the server
    server_.join();
  }
  AgentClient& client() { return *client_; }

  RecordingMachine machine;
  AgentState state;
  std::set<std::string> ops_seen;

 private:
  std::unique_ptr<AgentClient> client_;
  std::thread server_;
};

TEST(NodeOps, EveryClientRequestIsServedByTheTableWithItsFields) {
  LoopbackAgent agent;
  NodeOpsClient ops(agent.client(), "b");
  EXPECT_TRUE(ops.wait_for_link("tun0", 5, -1).ok());
  EXPECT_TRUE(ops.create_link("vx0", "vxlan", LinkOptions{7, 42, "200::1", 4789}).ok());
  EXPECT_TRUE(ops.delete_link("vx0").ok());
  EXPECT_TRUE(ops.set_sysctls({{"net/ipv6/conf/default/disable_ipv6", "0"}}).ok());
  EXPECT_TRUE(ops.configure_link("tun0", *parse_host_addr("10.77.0.2/24"), 1420).ok());
  auto link = ops.get_link("tun0");
  ASSERT_TRUE(link.ok()) << link.error().format();
  EXPECT_EQ(link->kind, "tun");
  EXPECT_EQ(link->mtu, 1420);
  EXPECT_TRUE(ops.ping(*parse_ipv4("10.77.0.1"), 1, -1, 1372, true).ok());
  EXPECT_TRUE(ops.wait_tcp_listening(5201, 5, -1).ok());
  EXPECT_TRUE(ops.set_rps({"lan"}, {1}).ok());
  EXPECT_TRUE(ops.set_offloads("tun0", false).ok());
  auto probe = ops.latency_probe(*parse_ipv4("10.77.0.1"), 10, 500);
  ASSERT_TRUE(probe.ok() && *probe);
  const LatencyProbe::Summary echoes = (*probe)->stop();
  EXPECT_EQ(echoes.answered, 9);
  EXPECT_EQ(echoes.reordered, 2) << "overtaken echoes cross the agent too";
  auto watch = ops.payload_watch("lan", "abcd", 5201);
  ASSERT_TRUE(watch.ok() && *watch);
  EXPECT_EQ((*watch)->stop().frames, 4u);
  auto none = ops.payload_watch("none", "abcd", 5201);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none) << "a machine without a watch gives none, not an error";
  AgentClient::Spawn s;
  s.argv = {"iperf3", "-s"};
  s.node = "b";
  s.private_run = true;
  auto id = agent.client().spawn(s);
  ASSERT_TRUE(id.ok()) << id.error().format();
  // A relay's CPU seconds, as AgentProcess::cpu_seconds asks for them.
  auto cpu = agent.client().call({{"op", "cpu"}, {"id", *id}}, 1000);
  ASSERT_TRUE(cpu.ok()) << cpu.error().format();
  EXPECT_EQ(cpu->value("cpu_s", 0.0), 1.5);
  auto exited = agent.client().wait(*id, 1);
  ASSERT_TRUE(exited.ok());
  EXPECT_EQ(exited->value_or(-1), 3);
  EXPECT_TRUE(agent.client().stop(*id).ok()) << "an id already gone is stopped";

  EXPECT_EQ(agent.machine.calls,
            (std::vector<std::string>{
                "wait_link b tun0 5", "create_link b vx0 vxlan 7 42 200::1 4789", "delete_link b vx0",
                "sysctl b net/ipv6/conf/default/disable_ipv6=0", "configure b tun0 10.77.0.2/24 1420",
                "get_link b tun0", "ping b 10.77.0.1 1372 df", "wait_listen b 5201", "rps b lan 1",
                "offloads b tun0 off", "latency_start b 10.77.0.1 10 x500", "watch_start b lan abcd 5201",
                "watch_start b none abcd 5201", "spawn b iperf3 private"}));
  // What the client sends is the table's; what the table has, the client sends (status and
  // reap come from the process watcher, tested with the backends).
  std::set<std::string> table;
  for (const auto& name : node_op_names()) table.insert(name);
  for (const auto& op : agent.ops_seen) EXPECT_TRUE(table.count(op)) << op;
  for (const auto& op : table) {
    if (op == "status" || op == "reap") continue;
    EXPECT_TRUE(agent.ops_seen.count(op)) << op << " is served but no client sends it";
  }
}

TEST(NodeOps, ANodeTheAgentDoesNotRunAndAMissingFieldAreRefused) {
  LoopbackAgent agent;
  auto other = NodeOpsClient(agent.client(), "c").wait_for_link("tun0", 1, -1);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("node 'c' is not on this host"), std::string::npos) << other.error().message;
  auto bare = agent.client().call({{"op", "configure"}, {"node", "b"}, {"ifname", "tun0"}});
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.error().message.find("malformed request"), std::string::npos) << bare.error().message;
  auto unknown = agent.client().call({{"op", "link"}, {"node", "b"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown op 'link'"), std::string::npos) << unknown.error().message;
  EXPECT_TRUE(agent.machine.calls.empty());
}

}  // namespace
}  // namespace vpnlab
