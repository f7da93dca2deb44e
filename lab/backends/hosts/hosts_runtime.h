// The hosts backend: a plan's nodes as namespaces on several machines, each reached over
// ssh (lab/backends/hosts/ssh_channel.h) and driven by the vpnlab-host-agent there (lab/backends/hosts/host_agent.h).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/model/plan.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

// What one run keeps between its rounds (lab/backends/hosts/host_link.h): each host's agent connection,
// idle between rounds (one ssh session per host for the whole run; closing it at the end,
// or vpnlab's death, is the agents' EOF), and what the checks before the run learnt.
struct HostPool;
std::shared_ptr<HostPool> make_host_pool();

struct HostsOptions {
  std::string default_agent;  // vpnlab-host-agent's path on a host whose [[host]] names none
  // The run's products: each host must have their programs; their versions there go to
  // environment.json (hosts[].products).
  struct Product {
    std::string name;
    std::vector<std::string> binaries, version_argv;
  };
  std::vector<Product> products;
  std::shared_ptr<HostPool> pool = make_host_pool();  // shared by the copies of one run's options
};

// Connects to every host of the plan, checks versions, NICs, CPUs and the products'
// programs on all of them, then has each build its part. ssh's logs go to
// run_dir/ssh-HOST.log.
Result<std::unique_ptr<NodeRuntime>> build_hosts_runtime(const Plan& plan, const std::string& run_dir,
                                                         const HostsOptions& opts, int interrupt_fd);

// Before a run: every host answers over ssh with an agent of this version, its nic is free,
// its CPUs exist and the products' programs are there; nothing is created. The same checks
// open every round's build.
Status check_hosts(const Plan& plan, const HostsOptions& opts);

// `vpnlab doctor FILE`: each host on its own (one that fails does not hide the others):
// its facts as environment.json records them (name, ssh, kernel, CPU, nics, products), or
// {"name", "ssh", "error"}.
nlohmann::json probe_hosts(const Plan& plan, const HostsOptions& opts);

// `vpnlab cleanup FILE`: on every host of the plan, what a killed agent left (NICs back
// under their names, the lab's namespaces and their processes), as "host 'h1': ..." lines.
Result<std::vector<std::string>> cleanup_hosts(const Plan& plan, const HostsOptions& opts, bool dry_run);

}  // namespace vpnlab
