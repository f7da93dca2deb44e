// The hosts backend behind NodeRuntime: one agent per host, reached over ssh; every node
// operation goes to the agent of the node's host, which runs it with the netns backend
// there. Nothing is created anywhere until every host has answered hello (same version)
// and check (its NIC free, its CPUs there).
#include "hosts/hosts_runtime.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <spdlog/spdlog.h>

#include "hosts/cpu_wire.h"
#include "hosts/file_mirror.h"
#include "hosts/plan_wire.h"
#include "hosts/ssh_channel.h"
#include "lab/base/fs_util.h"
#include "lab/base/version.h"
#include "vm/agent_process.h"

namespace vpnlab {

namespace {

using nlohmann::json;

struct HostLink {
  PlanHost host;
  SshChannel channel;
  std::unique_ptr<AgentClient> agent;
  json hello;
  std::vector<uint64_t> inodes;  // of the namespaces its agent built
  std::unique_ptr<FileMirror> mirror;  // set when the host does not see this machine's run directory
};

std::string first_line(const std::string& path) {
  std::string text = read_file_text(path);
  return text.substr(0, text.find('\n'));
}

// The last non-empty line of ssh's log: what ssh said when it failed.
std::string ssh_said(const std::string& log_path) {
  std::string text = read_file_text(log_path);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  auto nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

// A probe or watch running on a host: stop() fetches its summary once.
class RemoteLatencyProbe : public LatencyProbe {
 public:
  RemoteLatencyProbe(AgentClient* agent, int id) : agent_(agent), id_(id) {}
  ~RemoteLatencyProbe() override { (void)stop(); }
  Summary stop() override {
    if (done_) return summary_;
    done_ = true;
    auto r = agent_->call({{"op", "latency_stop"}, {"id", id_}});
    if (!r) return summary_;
    summary_.sent = r->value("sent", 0);
    summary_.answered = r->value("answered", 0);
    summary_.p50_ms = r->value("p50_ms", 0.0);
    summary_.p99_ms = r->value("p99_ms", 0.0);
    summary_.max_ms = r->value("max_ms", 0.0);
    summary_.rtts_ms = r->value("rtts_ms", std::vector<double>{});
    return summary_;
  }

 private:
  AgentClient* agent_;
  int id_;
  bool done_ = false;
  Summary summary_;
};

class RemotePayloadWatch : public PayloadWatch {
 public:
  RemotePayloadWatch(AgentClient* agent, int id) : agent_(agent), id_(id) {}
  ~RemotePayloadWatch() override { (void)stop(); }
  Summary stop() override {
    if (done_) return summary_;
    done_ = true;
    auto r = agent_->call({{"op", "watch_stop"}, {"id", id_}});
    if (!r) return summary_;
    summary_.frames = r->value("frames", uint64_t{0});
    summary_.bytes = r->value("bytes", uint64_t{0});
    summary_.ipv4_bytes = r->value("ipv4_bytes", uint64_t{0});
    summary_.port_bytes = r->value("port_bytes", uint64_t{0});
    summary_.drops = r->value("drops", uint64_t{0});
    summary_.pattern_seen = r->value("pattern_seen", false);
    return summary_;
  }

 private:
  AgentClient* agent_;
  int id_;
  bool done_ = false;
  Summary summary_;
};

class HostsRuntime : public NodeRuntime {
 public:
  HostsRuntime(std::vector<std::unique_ptr<HostLink>> hosts, const Plan& plan) : hosts_(std::move(hosts)) {
    for (const auto& n : plan.nodes) host_of_[n.name] = n.host;
  }
  ~HostsRuntime() override { (void)teardown(15); }
  std::string backend() const override { return "hosts"; }

  Result<std::unique_ptr<NodeProcess>> spawn(const std::string& node, SpawnSpec spec, bool private_run) override {
    AgentClient::Spawn s{spec.argv, spec.env, spec.cpus, spec.stdout_path, spec.stderr_path, spec.cwd, node, private_run};
    FileMirror* mirror = link(node).mirror.get();
    if (!mirror) return processes_.spawn(agent(node), s, where(node));
    if (auto st = mirror->push_inputs(); !st) return with_context(st.error(), where(node));
    // Its outputs come back before the runner learns that it ended.
    auto fetch = [mirror, out = spec.stdout_path, err = spec.stderr_path] {
      (void)mirror->fetch(out);
      if (err != out) (void)mirror->fetch(err);
    };
    return processes_.spawn(agent(node), s, where(node), fetch);
  }
  Status wait_for_link(const std::string& node, const std::string& ifname, double timeout_s, int) override {
    return call(node, {{"op", "wait_link"}, {"ifname", ifname}, {"timeout_s", timeout_s}}, timeout_s);
  }
  Status create_link_of_kind(const std::string& node, const std::string& ifname, const std::string& kind, int if_id) override {
    return call(node, {{"op", "create_link"}, {"ifname", ifname}, {"kind", kind}, {"if_id", if_id}}, 10);
  }
  Status configure_link(const std::string& node, const std::string& ifname, const HostAddr& addr, int mtu) override {
    return call(node, {{"op", "configure"}, {"ifname", ifname}, {"addr", addr.str()}, {"mtu", mtu}}, 5);
  }
  Result<LinkInfo> get_link(const std::string& node, const std::string& ifname) override {
    auto r = agent(node).call({{"op", "get_link"}, {"node", node}, {"ifname", ifname}});
    if (!r) return with_context(r.error(), where(node));
    LinkInfo l;
    l.name = r->value("name", "");
    l.kind = r->value("kind", "");
    l.mtu = r->value("mtu", 0);
    l.up = r->value("up", false);
    l.rx_bytes = r->value("rx_bytes", uint64_t{0});
    l.tx_bytes = r->value("tx_bytes", uint64_t{0});
    l.rx_packets = r->value("rx_packets", uint64_t{0});
    l.tx_packets = r->value("tx_packets", uint64_t{0});
    return l;
  }
  Status ping(const std::string& node, Ipv4Addr target, double timeout_s, int, int payload, bool df) override {
    return call(node, {{"op", "ping"}, {"addr", target.str()}, {"timeout_s", timeout_s}, {"payload", payload}, {"df", df}}, timeout_s);
  }
  Status wait_tcp_listening(const std::string& node, int port, double timeout_s, int) override {
    return call(node, {{"op", "wait_listen"}, {"port", port}, {"timeout_s", timeout_s}}, timeout_s);
  }
  // Each agent holds its part's routes; it adds those of one kind.
  Status add_routes(const Plan&, PlanRoute::When when) override {
    const char* kind = when == PlanRoute::When::tunnel ? "tunnel" : when == PlanRoute::When::baseline ? "baseline" : "always";
    for (auto& h : hosts_)
      if (auto r = h->agent->call({{"op", "routes"}, {"when", kind}}); !r) return with_context(r.error(), "host '" + h->host.name + "'");
    return ok_status();
  }
  Status set_rps(const std::string& node, const std::vector<std::string>& ifnames, const std::vector<int>& cpus) override {
    return call(node, {{"op", "rps"}, {"ifnames", ifnames}, {"cpus", cpus}}, 5);
  }
  Status set_offloads(const std::string& node, const std::string& ifname, bool on) override {
    return call(node, {{"op", "offloads"}, {"ifname", ifname}, {"on", on}}, 5);
  }
  // From the client's host: the echoes cross the same wire and tunnel as the load.
  Result<std::unique_ptr<LatencyProbe>> latency_probe(const std::string& node, Ipv4Addr target, int interval_ms) override {
    auto r = agent(node).call({{"op", "latency_start"}, {"node", node}, {"addr", target.str()}, {"interval_ms", interval_ms}});
    if (!r) return with_context(r.error(), where(node));
    if (r->value("id", 0) == 0) return std::unique_ptr<LatencyProbe>();
    return std::unique_ptr<LatencyProbe>(new RemoteLatencyProbe(&agent(node), r->value("id", 0)));
  }
  Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string& node, const std::string& ifname, const std::string& pattern,
                                                      int port) override {
    auto r = agent(node).call({{"op", "watch_start"}, {"node", node}, {"ifname", ifname}, {"pattern", pattern}, {"port", port}});
    if (!r) return with_context(r.error(), where(node));
    if (r->value("id", 0) == 0) return std::unique_ptr<PayloadWatch>();
    return std::unique_ptr<PayloadWatch>(new RemotePayloadWatch(&agent(node), r->value("id", 0)));
  }
  // One question per machine: hosts with one boot_id share their CPUs (emulated hosts, or
  // two nodes' hosts that are one machine) and are counted once.
  Result<std::vector<MachineCpu>> cpu_times() override {
    std::vector<MachineCpu> out;
    std::map<std::string, size_t> by_boot;
    std::vector<HostLink*> asked;
    for (auto& h : hosts_) {
      std::string boot = h->hello.value("boot_id", "");
      if (auto it = by_boot.find(boot); it != by_boot.end() && !boot.empty()) {
        out[it->second].name += "+" + h->host.name;
        continue;
      }
      by_boot[boot] = out.size();
      out.push_back({h->host.name, {}, {}});
      asked.push_back(h.get());
    }
    for (size_t i = 0; i < asked.size(); ++i) {
      auto r = asked[i]->agent->call({{"op", "cpu"}});
      if (!r) return with_context(r.error(), "host '" + asked[i]->host.name + "': CPU times");
      try {
        out[i].total = cpu_from_json(r->at("total"));
        for (const auto& c : r->at("per_cpu")) out[i].per_cpu.push_back(cpu_from_json(c));
      } catch (const std::exception& e) {
        return make_error("host '" + asked[i]->host.name + "': malformed CPU times: " + e.what());
      }
    }
    return out;
  }
  std::string limits() const override { return ""; }
  bool can_watch_payload() const override { return true; }
  // The lab's namespaces on this machine (outside-load accounting): those of hosts that are
  // this machine (the same boot_id: emulated hosts), none for real ones.
  std::vector<uint64_t> inodes() const override {
    std::vector<uint64_t> out;
    const std::string here = first_line("/proc/sys/kernel/random/boot_id");
    for (const auto& h : hosts_)
      if (h->hello.value("boot_id", "") == here) out.insert(out.end(), h->inodes.begin(), h->inodes.end());
    return out;
  }

  json record(const std::string&) override {
    json hosts = json::array();
    for (const auto& h : hosts_) {
      json one = h->hello;
      one.erase("ok");
      one.erase("seq");
      one.erase("pid");
      one["name"] = h->host.name;
      one["ssh"] = h->host.ssh;
      one["nic"] = h->host.nic;
      hosts.push_back(one);
    }
    return {{"hosts", hosts}};
  }
  Audit audit() override {
    Audit a{processes_.still_tracked("a host"), {}};
    for (auto& h : hosts_) {
      auto r = h->agent->call({{"op", "audit"}});
      if (!r) {
        a.leftovers.push_back("host '" + h->host.name + "': no audit: " + r.error().message);
        continue;
      }
      for (const auto& l : (*r)["leftovers"]) a.leftovers.push_back("host '" + h->host.name + "': " + l.get<std::string>());
      for (const auto& f : (*r)["run_files"]) a.run_files.push_back("host '" + h->host.name + "': " + f.get<std::string>());
    }
    return a;
  }
  Status teardown(double timeout_s) override {
    if (torn_down_) return ok_status();
    torn_down_ = true;
    processes_.stop_watching();
    Status result = ok_status();
    for (auto& h : hosts_) {
      auto r = h->agent->call({{"op", "teardown"}, {"timeout_s", timeout_s}}, static_cast<int>(timeout_s * 1000) + 5000);
      if (!r && result) result = with_context(r.error(), "host '" + h->host.name + "': teardown");
    }
    close_channels(hosts_);
    return result;
  }

  // Closing the socket is the agent's EOF: it exits, and so does ssh.
  static void close_channels(std::vector<std::unique_ptr<HostLink>>& hosts) {
    for (auto& h : hosts) {
      h->agent.reset();
      h->channel.fd.reset();
    }
    for (auto& h : hosts)
      if (h->channel.ssh && !h->channel.ssh->wait_exit(5000)) h->channel.ssh->stop(1000);
  }

 private:
  HostLink& link(const std::string& node) {
    const std::string& host = host_of_.at(node);
    for (auto& h : hosts_)
      if (h->host.name == host) return *h;
    throw std::logic_error("node without a host");  // make_plan gives every node one
  }
  AgentClient& agent(const std::string& node) { return *link(node).agent; }
  std::string where(const std::string& node) const { return "node '" + node + "' on host '" + host_of_.at(node) + "'"; }
  Status call(const std::string& node, json req, double timeout_s) {
    req["node"] = node;
    auto r = agent(node).call(std::move(req), static_cast<int>(timeout_s * 1000) + 10000);
    if (!r) return with_context(r.error(), where(node));
    return ok_status();
  }

  std::vector<std::unique_ptr<HostLink>> hosts_;
  std::map<std::string, std::string> host_of_;
  AgentProcesses processes_;
  bool torn_down_ = false;
};

// ssh to the host and hello: the connection works, the agent is there and of this version.
Result<std::unique_ptr<HostLink>> connect_host(const PlanHost& h, const std::string& default_agent, const std::string& log_dir) {
  auto link = std::make_unique<HostLink>();
  link->host = h;
  const std::string agent_path = h.agent.empty() ? default_agent : h.agent;
  auto ch = open_ssh_channel({h.name, h.ssh, h.ssh_options, agent_path}, log_dir + "/ssh-" + h.name + ".log");
  if (!ch) return ch.error();
  link->channel = std::move(*ch);
  link->agent = AgentClient::over(UniqueFd(::dup(link->channel.fd.get())), "on host '" + h.name + "'");
  // The first answer waits for ssh's handshake too (ConnectTimeout bounds it).
  auto hello = link->agent->call({{"op", "hello"}}, 20000);
  if (!hello) {
    std::vector<std::unique_ptr<HostLink>> one;
    one.push_back(std::move(link));
    HostsRuntime::close_channels(one);
    std::string said = ssh_said(one.front()->channel.log_path);
    return make_error("host '" + h.name + "' (ssh " + h.ssh + "): " + (said.empty() ? hello.error().message : said),
                      "check that 'ssh " + h.ssh + "' logs in without a password as root and that " + agent_path +
                          " exists there (README, 'Real hosts')");
  }
  if (std::string v = hello->value("version", ""); v != vpnlab_version()) {
    std::vector<std::unique_ptr<HostLink>> one;
    one.push_back(std::move(link));
    HostsRuntime::close_channels(one);
    return make_error("host '" + h.name + "': its vpnlab-agent is version '" + v + "', this vpnlab is '" + vpnlab_version() + "'",
                      "install the same vpnlab build on every host (README, 'Real hosts')");
  }
  link->hello = std::move(*hello);
  return link;
}

}  // namespace

// Connects to every host of the plan that has nodes and has each check its part; nothing
// is made anywhere until all of them agree.
Result<std::vector<std::unique_ptr<HostLink>>> connect_and_check(const Plan& plan, const HostsOptions& opts,
                                                                const std::string& log_dir) {
  std::vector<std::unique_ptr<HostLink>> hosts;
  auto give_up = [&](Error e) -> Result<std::vector<std::unique_ptr<HostLink>>> {
    HostsRuntime::close_channels(hosts);
    return e;
  };
  for (const auto& h : plan.hosts) {
    if (std::none_of(plan.nodes.begin(), plan.nodes.end(), [&](const PlanNode& n) { return n.host == h.name; })) continue;
    auto link = connect_host(h, opts.default_agent, log_dir);
    if (!link) return give_up(link.error());
    hosts.push_back(std::move(*link));
  }
  json products = json::array();
  for (const auto& p : opts.products) products.push_back({{"name", p.name}, {"binaries", p.binaries}, {"version", p.version_argv}});
  for (auto& h : hosts) {
    Plan part = plan_for_host(plan, h->host.name);
    json nics = json::array();
    for (const auto& n : part.nics) nics.push_back(n.nic);
    int max_cpu = -1;
    for (const auto& n : part.nodes)
      for (const auto* list : {&n.cpus, &n.load_cpus})
        for (int c : *list) max_cpu = std::max(max_cpu, c);
    auto checked = h->agent->call({{"op", "check"}, {"host", h->host.name}, {"nics", nics}, {"max_cpu", max_cpu}});
    if (!checked) return give_up(checked.error());
    h->hello["nics"] = (*checked)["nics"];
    auto probed = h->agent->call({{"op", "products"}, {"products", products}}, 30000);
    if (!probed) return give_up(with_context(probed.error(), "host '" + h->host.name + "'"));
    for (const auto& [name, p] : (*probed)["products"].items())
      if (std::string missing = p.value("missing", ""); !missing.empty())
        return give_up(make_error("host '" + h->host.name + "': product " + name + ": '" + missing + "' is not installed there",
                                  "install " + name + " on " + h->host.name + " as on this machine (README, 'Real hosts')"));
    h->hello["products"] = (*probed)["products"];
  }
  return hosts;
}

Status check_hosts(const Plan& plan, const HostsOptions& opts) {
  // ssh's logs, read for the error message, then removed.
  char dir[] = "/tmp/vpnlab-ssh-XXXXXX";
  if (!::mkdtemp(dir)) return make_error(std::string("cannot make a directory in /tmp: ") + errno_text(errno));
  auto hosts = connect_and_check(plan, opts, dir);
  if (hosts) HostsRuntime::close_channels(*hosts);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return hosts ? ok_status() : Status(hosts.error());
}

static std::set<std::string> told_mirror_;

json probe_hosts(const Plan& plan, const HostsOptions& opts) {
  json out = json::array();
  char dir[] = "/tmp/vpnlab-ssh-XXXXXX";
  if (!::mkdtemp(dir)) return out;
  for (const auto& h : plan.hosts) {
    Plan one = plan;
    one.hosts = {h};
    auto hosts = connect_and_check(one, opts, dir);
    if (!hosts) {
      out.push_back({{"name", h.name}, {"ssh", h.ssh}, {"error", hosts.error().message}});
      continue;
    }
    json facts = hosts->empty() ? json{{"name", h.name}, {"ssh", h.ssh}, {"error", "host '" + h.name + "': no node of the topology is on it"}} : hosts->front()->hello;
    facts.erase("ok");
    facts.erase("seq");
    facts.erase("pid");
    facts["name"] = h.name;
    facts["ssh"] = h.ssh;
    out.push_back(facts);
    HostsRuntime::close_channels(*hosts);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return out;
}

Result<std::vector<std::string>> cleanup_hosts(const Plan& plan, const HostsOptions& opts, bool dry_run) {
  char dir[] = "/tmp/vpnlab-ssh-XXXXXX";
  if (!::mkdtemp(dir)) return make_error(std::string("cannot make a directory in /tmp: ") + errno_text(errno));
  std::vector<std::string> lines;
  Status failed = ok_status();
  for (const auto& h : plan.hosts) {
    auto link = connect_host(h, opts.default_agent, dir);
    if (!link) {
      failed = link.error();
      break;
    }
    // This host's namespaces by their run-independent ends (make_plan names them).
    Plan part = plan_for_host(plan, h.name);
    std::vector<std::string> suffixes;
    for (const auto& n : part.nodes) suffixes.push_back(n.ns.substr(plan.ns_prefix.size() - 1));
    for (const auto& b : part.bridges) suffixes.push_back(b.ns.substr(plan.ns_prefix.size() - 1));
    auto r = (*link)->agent->call({{"op", "cleanup"}, {"dry_run", dry_run}, {"host", h.name}, {"lab", plan.lab}, {"suffixes", suffixes}}, 60000);
    std::vector<std::unique_ptr<HostLink>> one;
    one.push_back(std::move(*link));
    HostsRuntime::close_channels(one);
    if (!r) {
      failed = with_context(r.error(), "host '" + h.name + "'");
      break;
    }
    for (const auto& a : (*r)["actions"]) lines.push_back("host '" + h.name + "': " + a.get<std::string>());
    if ((*r)["actions"].empty()) lines.push_back("host '" + h.name + "': nothing of vpnlab's");
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!failed) return failed.error();
  return lines;
}

Result<std::unique_ptr<NodeRuntime>> build_hosts_runtime(const Plan& plan, const std::string& run_dir, const HostsOptions& opts, int) {
  auto checked = connect_and_check(plan, opts, run_dir.empty() ? std::string("/tmp") : run_dir);
  if (!checked) return checked.error();
  std::vector<std::unique_ptr<HostLink>> hosts = std::move(*checked);
  auto give_up = [&](Error e) -> Result<std::unique_ptr<NodeRuntime>> {
    HostsRuntime::close_channels(hosts);  // agents that built something tear it down on EOF
    return e;
  };
  for (auto& h : hosts) {
    auto r = h->agent->call({{"op", "build"}, {"part", host_part_json(plan_for_host(plan, h->host.name))}}, 60000);
    if (!r) return give_up(with_context(r.error(), "host '" + h->host.name + "'"));
    h->inodes = r->value("inodes", std::vector<uint64_t>{});
    if (run_dir.empty()) continue;
    auto shares = host_shares_files(*h->agent, run_dir);
    if (!shares) return give_up(with_context(shares.error(), "host '" + h->host.name + "'"));
    if (*shares) continue;
    h->mirror = std::make_unique<FileMirror>(h->agent.get(), run_dir, h->host.name);
    if (!told_mirror_.count(h->host.name))  // once per run, not per round
      spdlog::info("host '{}' does not see {}: products' inputs are copied there, outputs back", h->host.name, run_dir);
    told_mirror_.insert(h->host.name);
  }
  return std::unique_ptr<NodeRuntime>(new HostsRuntime(std::move(hosts), plan));
}

}  // namespace vpnlab
