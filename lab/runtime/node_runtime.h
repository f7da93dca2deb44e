// What a product session and a sample do on a node, whichever backend holds the node: a
// network namespace on this host (NetnsRuntime) or a QEMU guest reached through its agent
// (lab/backends/vm/guest_runtime.h). Product adapters and the sample code talk only to this, so a
// product needs nothing to run in a guest that it does not need in a namespace. It sits
// between the layers: the runner (lab/run/) calls it, the backends implement it, and
// neither sees the other.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/cpu_stat.h"
#include "lab/base/link_options.h"
#include "lab/base/process.h"
#include "lab/base/result.h"
#include "lab/model/plan.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

// /proc/sys-relative keys and their values, in order.
using Sysctls = std::vector<std::pair<std::string, std::string>>;

class NodeRuntime {
 public:
  virtual ~NodeRuntime() = default;
  virtual std::string backend() const = 0;

  // Starts spec.argv in `node` (spec.cpus are the host CPUs of the plan; netns_fd and
  // mntns_fd are the runtime's business). `private_run`: the node's own /run (products).
  virtual Result<std::unique_ptr<NodeProcess>> spawn(const std::string& node, SpawnSpec spec, bool private_run) = 0;
  // Runs to completion within timeout_s.
  Result<ProcessOutcome> run(const std::string& node, const SpawnSpec& spec, bool private_run, double timeout_s,
                             int interrupt_fd);

  virtual Status wait_for_link(const std::string& node, const std::string& ifname, double timeout_s,
                               int interrupt_fd) = 0;
  virtual Status create_link_of_kind(const std::string& node, const std::string& ifname, const std::string& kind,
                                     const LinkOptions& options);
  // Address, MTU, up: what a product's `configure` step does to its interface.
  // Removes a link the product made (create_link); one already gone is success.
  virtual Status delete_link(const std::string& node, const std::string& ifname);
  // Sets sysctls in the node's network namespace ("net/ipv6/conf/default/disable_ipv6" = "0"):
  // what a product's sysctl step asks for.
  virtual Status set_sysctls(const std::string& node, const Sysctls& settings);
  virtual Status configure_link(const std::string& node, const std::string& ifname, const HostAddr& addr, int mtu) = 0;
  virtual Result<LinkInfo> get_link(const std::string& node, const std::string& ifname) = 0;
  virtual Status ping(const std::string& node, Ipv4Addr target, double timeout_s, int interrupt_fd, int payload = 56,
                      bool dont_fragment = false) = 0;
  virtual Status wait_tcp_listening(const std::string& node, int port, double timeout_s, int interrupt_fd) = 0;
  virtual Status add_routes(const Plan& plan, PlanRoute::When when) = 0;
  virtual Status set_rps(const std::string& node, const std::vector<std::string>& ifnames,
                         const std::vector<int>& cpus);
  virtual Status set_offloads(const std::string& node, const std::string& ifname, bool on);
  // The root qdisc of a node's link, of `kind` with its defaults (a variant's qdisc). By
  // default an error: the backend does not replace qdiscs.
  virtual Status set_root_qdisc(const std::string& node, const std::string& ifname, const std::string& kind);

  // Measurements a backend may not offer: nullptr when it cannot.
  virtual Result<std::unique_ptr<LatencyProbe>> latency_probe(const std::string& node, Ipv4Addr target, int interval_ms,
                                                              int count);
  virtual Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string& node, const std::string& ifname,
                                                              const std::string& pattern, int port);
  // System-wide CPU time of every machine that holds nodes, for CPU-s/Gbit: this one by
  // default; the hosts backend asks each machine once (hosts on one machine are one entry).
  struct MachineCpu {
    std::string name;  // "" = this machine; else the host ("h1", or "h1+h2" for hosts on one machine)
    CpuTimes total;
    std::vector<CpuTimes> per_cpu;
  };
  virtual Result<std::vector<MachineCpu>> cpu_times();
  // Full-mesh convergence (lab/kernel/mesh_sweep.h): echoes from every VPN node of `plan` to
  // every other one's overlay address until each pair answered. By default an error: a
  // backend that cannot probe all nodes at once says so.
  virtual Result<SweepResult> sweep_mesh(const Plan& plan, double timeout_s, int interrupt_fd);
  // The offload features of a link as ethtool names them ("tx-tcp-segmentation": on): what
  // a product turned on for its TUN (GSO/GRO). Default: not read on this backend.
  virtual Result<std::map<std::string, bool>> link_offloads(const std::string& node, const std::string& ifname);
  // A variant's nftables rules (lab/run/variant.h), applied in the node's namespace once it
  // is built; the tables they leave are the node's variant tables, whose counters
  // variant_packets sums (a product's own tables, added later, are not counted). By
  // default an error: the backend does not apply rules.
  virtual Status apply_nftables(const std::string& node, const std::string& ruleset);
  struct Counted {
    uint64_t packets = 0;
    int counters = 0;  // 0: the rules have no counter to read
  };
  virtual Result<Counted> variant_packets(const std::string& node);
  // A machine this runtime can no longer reach, named for a row's reason ("host 'h1': agent
  // lost (...)"), or "" while every one answers. A failure then is that machine's, not the
  // product's. Local backends lose nothing.
  virtual std::string lost() { return ""; }
  // Why the optional measurements are missing ("" when they are all there).
  virtual std::string limits() const { return ""; }
  virtual bool can_watch_payload() const { return false; }
  // The lab's namespaces on this host (outside-load accounting).
  virtual std::vector<uint64_t> inodes() const { return {}; }

  // The run's records of the built topology: writes what it has into run_dir (the netns
  // backend: sysctls.json, offloads.json) and returns fields for environment.json (the vm
  // backend: accel, image, guests), which the runner adds.
  virtual nlohmann::json record(const std::string& run_dir);
  struct Audit {
    std::vector<std::string> leftovers;
    std::vector<std::string> run_files;
  };
  virtual Audit audit() = 0;
  virtual Status teardown(double timeout_s) = 0;

  // What the runner used to ask the kernel itself, asked of the backend, which answers for
  // its machine(s):
  // Waits up to timeout_ms until nothing outside the lab is runnable; returns how many
  // such tasks still were (0: idle).
  virtual int wait_outside_idle(int /*timeout_ms*/) { return 0; }
  // After teardown: until the kernel has finished destroying the topology, at most
  // timeout_s, so the next product starts on a settled machine.
  virtual Status settle_after_teardown(double /*timeout_s*/) { return ok_status(); }
};

// Builds a plan's topology on a backend; the run use case (lab/app) passes the one for
// plan.backend, from its backend entry (lab/runtime/backend_entry.h).
using RuntimeFactory =
    std::function<Result<std::unique_ptr<NodeRuntime>>(const Plan& plan, const std::string& run_dir, int interrupt_fd)>;

}  // namespace vpnlab
