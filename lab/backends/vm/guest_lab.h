// A topology as guests (backend = "vm"): one VM-host network namespace holding a bridge per
// link and the helper that owns the embedded libvirt driver, one guest per node booted from
// an image, each configured through its agent with the plan's addresses, MTU and routes.
// Everything carries the lab prefix: the namespace (QEMU and the helper live in it, so
// `cleanup` ends them like any lab process) and /run/<prefix>vm (sockets, libvirt state).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lab/agent/agent_client.h"
#include "lab/backends/vm/domain_xml.h"
#include "lab/backends/vm/image.h"
#include "lab/base/process.h"
#include "lab/kernel/namespace.h"
#include "lab/model/plan.h"

namespace vpnlab {

struct GuestLabOptions {
  std::string run_dir;  // shared read-write with every guest at the same path
  Accel accel = Accel::tcg;
  int memory_mib = 512;
  double boot_timeout_s = 60;
  int interrupt_fd = -1;
  std::string agent_path;   // vpnlab-agent (runs in guests from the host's root)
  std::string vmhost_path;  // vpnlab-vmhost
};

struct GuestInfo {
  std::string node, domain;
  std::string kernel;  // uname -r in the guest
  double boot_s = 0;   // domain start -> agent answered
  std::string console_log;
};

// The VM backend's directories on this host (/run/<prefix>vm: agent sockets, embedded
// libvirt state) for `cleanup` to remove: those of the VM-host namespaces in `only`, or
// all of them when it is empty.
std::vector<std::string> vm_state_dirs(const std::vector<std::string>& only);

// Where a plan's guests keep their sockets and libvirt state: /run/<prefix>vm.
std::string vm_dir_of(const Plan& plan);
// The unix socket of a node's agent channel (QEMU listens on it while the guest lives).
std::string agent_socket_of(const Plan& plan, const std::string& node);

// The host CPUs of a node's guest, in vCPU order: vCPU i runs on host CPU i of this list
// (the node's VPN CPUs, then its other load CPUs).
std::vector<int> guest_host_cpus(const PlanNode& node);

// The guests' part of a plan (pure): their names, NICs, pinning and kernel command line.
// NIC k of guest i belongs to underlay k of plan.nodes[i].
std::vector<GuestSpec> guest_specs(const Plan& plan, const Image& image, const GuestLabOptions& opts);

class GuestLab {
 public:
  static Result<std::unique_ptr<GuestLab>> start(const Plan& plan, const Image& image, const GuestLabOptions& opts);
  ~GuestLab();
  GuestLab(const GuestLab&) = delete;
  GuestLab& operator=(const GuestLab&) = delete;

  AgentClient& agent(const std::string& node) { return *agents_.at(node); }
  const std::vector<GuestInfo>& guests() const { return guests_; }
  std::vector<uint64_t> inodes() const;
  // Destroys the guests, stops the helper, removes the namespace and /run/<prefix>vm, and
  // waits until the kernel released the namespace. Already gone counts as success.
  Status teardown(double timeout_s = 15);
  // Leaves the guests up beyond this process (`vpnlab up`): the helper keeps them after its
  // channel closes, and the namespace stays; `vpnlab down` (or `cleanup`) ends them.
  Status keep();

 private:
  GuestLab() = default;
  Status configure(const Plan& plan, const PlanNode& node, const GuestSpec& spec, AgentClient& agent);
  std::string vm_dir_;
  std::vector<Netns> ns_;
  std::unique_ptr<Child> helper_;
  std::unique_ptr<JsonLines> helper_ch_;
  std::map<std::string, std::unique_ptr<AgentClient>> agents_;
  std::vector<GuestInfo> guests_;
  bool torn_down_ = false;
};

}  // namespace vpnlab
