#include "lab/backends/hosts/host_link.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>

#include "lab/base/fs_util.h"
#include "lab/base/trusted_dir.h"
#include "lab/base/version.h"

namespace vpnlab {

using nlohmann::json;

namespace {

// A directory for ssh's logs while hosts are asked (they are read for error messages), gone
// afterwards: inside the process's private ssh directory, not one of its own in /tmp.
struct ScratchDir {
  std::string path;
  Status made = make_error("not made");
  ScratchDir() {
    auto dir = ssh_private_dir();
    if (!dir) {
      made = dir.error();
      return;
    }
    std::string name = *dir + "/logs-XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) {
      made = make_error("cannot make " + name + ": " + errno_text(errno));
      return;
    }
    path = name;
    made = ok_status();
  }
  ~ScratchDir() {
    if (!path.empty()) (void)remove_tree(path);
  }
};

}  // namespace

std::string ssh_last_line(const std::string& log_path) {
  std::string text = read_file_text(log_path);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  auto nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

std::shared_ptr<HostPool> make_host_pool() { return std::make_shared<HostPool>(); }

HostPool::~HostPool() {
  std::vector<std::unique_ptr<HostLink>> links;
  for (auto& [name, link] : idle) links.push_back(std::move(link));
  close_links(links);
}

json host_facts(const HostLink& h) {
  json facts = h.hello;
  for (const char* key : {"ok", "seq", "pid"}) facts.erase(key);
  facts["name"] = h.host.name;
  facts["ssh"] = h.host.ssh;
  facts["nic"] = h.host.nic;
  return facts;
}

void close_links(std::vector<std::unique_ptr<HostLink>>& hosts) {
  for (auto& h : hosts) {
    h->agent.reset();
    h->channel.fd.reset();
  }
  for (auto& h : hosts)
    if (h->channel.ssh && !h->channel.ssh->wait_exit(5000)) h->channel.ssh->stop(1000);
}

Result<std::unique_ptr<HostLink>> connect_host(const PlanHost& h, const std::string& default_agent,
                                               const std::string& log_dir) {
  auto link = std::make_unique<HostLink>();
  link->host = h;
  const std::string agent_path = h.agent.empty() ? default_agent : h.agent;
  auto ch = open_ssh_channel({h.name, h.ssh, h.ssh_options, agent_path, h.host_key, h.known_hosts},
                             log_dir + "/ssh-" + h.name + ".log");
  if (!ch) return ch.error();
  link->channel = std::move(*ch);
  link->agent = AgentClient::over(UniqueFd(::dup(link->channel.fd.get())), "on host '" + h.name + "'");
  // The first answer waits for ssh's handshake too (ConnectTimeout bounds it).
  auto hello = link->agent->call({{"op", "hello"}}, 20000);
  if (!hello) {
    std::vector<std::unique_ptr<HostLink>> one;
    one.push_back(std::move(link));
    close_links(one);
    std::string said = ssh_last_line(one.front()->channel.log_path);
    const std::string log = read_file_text(one.front()->channel.log_path);
    if (log.find("Host key verification failed") != std::string::npos ||
        log.find("No ED25519 host key is known") != std::string::npos ||
        log.find("REMOTE HOST IDENTIFICATION HAS CHANGED") != std::string::npos)
      return make_error(
          "host '" + h.name + "' (ssh " + h.ssh + "): its host key is not one vpnlab trusts (" + said + ")",
          "pin it in the topology: host_key = \"ssh-ed25519 AAAA...\" (ssh-keyscan -t ed25519 HOST), name a "
          "known-hosts "
          "file with known_hosts = \"FILE\", or trust the first key with host_key = \"accept-new\" (README, 'Real "
          "hosts')");
    return make_error("host '" + h.name + "' (ssh " + h.ssh + "): " + (said.empty() ? hello.error().message : said),
                      "check that 'ssh " + h.ssh + "' logs in without a password as root and that " + agent_path +
                          " exists there (README, 'Real hosts')");
  }
  if (std::string v = hello->value("version", ""); v != vpnlab_version()) {
    std::vector<std::unique_ptr<HostLink>> one;
    one.push_back(std::move(link));
    close_links(one);
    return make_error("host '" + h.name + "': its vpnlab-host-agent is version '" + v + "', this vpnlab is '" +
                          vpnlab_version() + "'",
                      "install the same vpnlab build on every host (README, 'Real hosts')");
  }
  link->hello = std::move(*hello);
  return link;
}

Result<std::vector<std::unique_ptr<HostLink>>> connect_and_check(const Plan& plan, const HostsOptions& opts,
                                                                 const std::string& log_dir) {
  std::vector<std::unique_ptr<HostLink>> hosts;
  auto give_up = [&](Error e) -> Result<std::vector<std::unique_ptr<HostLink>>> {
    close_links(hosts);
    return e;
  };
  for (const auto& h : plan.hosts) {
    if (std::none_of(plan.nodes.begin(), plan.nodes.end(), [&](const PlanNode& n) { return n.host == h.name; }))
      continue;
    if (auto idle = opts.pool->idle.find(h.name);
        idle != opts.pool->idle.end()) {  // the run's connection, from an earlier round
      hosts.push_back(std::move(idle->second));
      opts.pool->idle.erase(idle);
      continue;
    }
    auto link = connect_host(h, opts.default_agent, log_dir);
    if (!link) return give_up(link.error());
    hosts.push_back(std::move(*link));
  }
  json products = json::array();
  for (const auto& p : opts.products)
    products.push_back({{"name", p.name}, {"binaries", p.binaries}, {"version", p.version_argv}});
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
    if (auto it = opts.pool->learnt.find(h->host.name);
        it != opts.pool->learnt.end()) {  // the products were checked before the run
      h->hello["nics"] = (*checked)["nics"];
      h->hello["products"] = it->second["products"];
      continue;
    }
    h->hello["nics"] = (*checked)["nics"];
    auto probed = h->agent->call({{"op", "products"}, {"products", products}}, 30000);
    if (!probed) return give_up(with_context(probed.error(), "host '" + h->host.name + "'"));
    for (const auto& [name, p] : (*probed)["products"].items())
      if (std::string missing = p.value("missing", ""); !missing.empty())
        return give_up(
            make_error("host '" + h->host.name + "': product " + name + ": '" + missing + "' is not installed there",
                       "install " + name + " on " + h->host.name + " as on this machine (README, 'Real hosts')"));
    h->hello["products"] = (*probed)["products"];
    opts.pool->learnt[h->host.name] = h->hello;
  }
  return hosts;
}

Status check_hosts(const Plan& plan, const HostsOptions& opts) {
  ScratchDir dir;
  if (!dir.made) return dir.made.error();
  auto hosts = connect_and_check(plan, opts, dir.path);
  if (!hosts) return hosts.error();
  for (auto& h : *hosts) opts.pool->idle[h->host.name] = std::move(h);  // the first round's connections
  return ok_status();
}

json probe_hosts(const Plan& plan, const HostsOptions& opts) {
  json out = json::array();
  ScratchDir dir;
  for (const auto& h : plan.hosts) {
    if (!dir.made) {
      out.push_back({{"name", h.name}, {"ssh", h.ssh}, {"error", dir.made.error().message}});
      continue;
    }
    Plan one = plan;
    one.hosts = {h};
    auto hosts = connect_and_check(one, opts, dir.path);
    if (!hosts) {
      out.push_back({{"name", h.name}, {"ssh", h.ssh}, {"error", hosts.error().message}});
      continue;
    }
    out.push_back(hosts->empty() ? json{{"name", h.name},
                                        {"ssh", h.ssh},
                                        {"error", "host '" + h.name + "': no node of the topology is on it"}}
                                 : host_facts(*hosts->front()));
    close_links(*hosts);
  }
  return out;
}

Result<std::vector<std::string>> cleanup_hosts(const Plan& plan, const HostsOptions& opts, bool dry_run) {
  ScratchDir dir;
  if (!dir.made) return dir.made.error();
  std::vector<std::string> lines;
  Status failed = ok_status();
  for (const auto& h : plan.hosts) {
    auto link = connect_host(h, opts.default_agent, dir.path);
    if (!link) {
      failed = link.error();
      break;
    }
    // This host's namespaces by their run-independent ends (make_plan names them).
    Plan part = plan_for_host(plan, h.name);
    std::vector<std::string> suffixes;
    for (const auto& n : part.nodes) suffixes.push_back(n.ns.substr(plan.ns_prefix.size() - 1));
    for (const auto& b : part.bridges) suffixes.push_back(b.ns.substr(plan.ns_prefix.size() - 1));
    auto r = (*link)->agent->call(
        {{"op", "cleanup"}, {"dry_run", dry_run}, {"host", h.name}, {"lab", plan.lab}, {"suffixes", suffixes}}, 60000);
    std::vector<std::unique_ptr<HostLink>> one;
    one.push_back(std::move(*link));
    close_links(one);
    if (!r) {
      failed = with_context(r.error(), "host '" + h.name + "'");
      break;
    }
    for (const auto& a : (*r)["actions"]) lines.push_back("host '" + h.name + "': " + a.get<std::string>());
    if ((*r)["actions"].empty()) lines.push_back("host '" + h.name + "': nothing of vpnlab's");
  }
  if (!failed) return failed.error();
  return lines;
}

}  // namespace vpnlab
