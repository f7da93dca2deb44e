#include "lab/backends/vm/guest_runtime.h"

#include <algorithm>
#include <map>

#include <spdlog/spdlog.h>

#include "lab/agent/agent_process.h"
#include "lab/agent/agent_runtime.h"
#include "lab/kernel/namespace.h"
#include "lab/kernel/outside_load.h"

namespace vpnlab {
namespace {

using nlohmann::json;

class GuestRuntime : public AgentRuntime {
 public:
  GuestRuntime(std::unique_ptr<GuestLab> lab, const Plan& plan, std::string accel, json image)
      : lab_(std::move(lab)), accel_(std::move(accel)), image_(std::move(image)) {
    for (const auto& n : plan.nodes) vcpus_[n.name] = guest_host_cpus(n);
  }
  ~GuestRuntime() override { (void)teardown(15); }

  std::string backend() const override { return "vm"; }

  Result<std::unique_ptr<NodeProcess>> spawn(const std::string& node, SpawnSpec spec, bool) override {
    return processes_.spawn(
        lab_->agent(node),
        {spec.argv, spec.env, guest_cpus(node, spec.cpus), spec.stdout_path, spec.stderr_path, spec.cwd, node},
        where(node));
  }

  Status add_routes(const Plan& plan, PlanRoute::When when) override {
    for (const auto& r : plan.routes)
      if (r.when == when)
        if (auto s = lab_->agent(r.node).call({{"op", "route"}, {"dest", r.dest.str()}, {"via", r.via.str()}}, 15000);
            !s)
          return with_context(s.error(), where(r.node));
    return ok_status();
  }
  // In the guest's kernel, to the vCPUs that run on the node's VPN CPUs.
  Status set_rps(const std::string& node, const std::vector<std::string>& ifnames,
                 const std::vector<int>& cpus) override {
    return in(node, ops(node).set_rps(ifnames, guest_cpus(node, cpus)));
  }
  std::string limits() const override { return ""; }
  bool can_watch_payload() const override { return true; }
  std::vector<uint64_t> inodes() const override { return lab_->inodes(); }
  // The guests run on this host: its load and its kernel's namespace cleanup (the guest
  // lab's host side) are what a next sample waits for.
  int wait_outside_idle(int timeout_ms) override { return vpnlab::wait_outside_idle(inodes(), timeout_ms); }
  Status settle_after_teardown(double timeout_s) override { return wait_kernel_netns_cleanup(timeout_s); }

  json record(const std::string&) override {
    json guests = json::array();
    for (const auto& g : lab_->guests())
      guests.push_back({{"node", g.node}, {"domain", g.domain}, {"kernel", g.kernel}, {"boot_s", g.boot_s}});
    return {{"accel", accel_}, {"image", image_}, {"guests", guests}, {"vm_limits", limits()}};
  }
  Audit audit() override { return Audit{processes_.still_tracked("a guest"), {}}; }
  Status teardown(double timeout_s) override {
    if (torn_down_) return ok_status();
    torn_down_ = true;
    processes_.stop_watching();
    return lab_->teardown(timeout_s);
  }

 private:
  AgentClient& agent_of(const std::string& node) override { return lab_->agent(node); }
  std::string where(const std::string& node) const override { return "guest '" + node + "'"; }
  std::unique_ptr<GuestLab> lab_;
  std::string accel_;
  json image_;
  std::map<std::string, std::vector<int>> vcpus_;
  // Host CPU numbers of the plan become the guest's vCPU numbers (vCPU i runs on vcpus_[i]).
  std::vector<int> guest_cpus(const std::string& node, const std::vector<int>& host_cpus) const {
    std::vector<int> out;
    const auto& v = vcpus_.at(node);
    for (int c : host_cpus) {
      auto it = std::find(v.begin(), v.end(), c);
      if (it != v.end()) out.push_back(static_cast<int>(it - v.begin()));
    }
    return out;
  }
  AgentProcesses processes_;
  bool torn_down_ = false;
};

}  // namespace

Result<VmBackend> prepare_vm_backend(const std::string& recipe, const std::string& bin_dir) {
  auto rc = load_recipe(recipe);
  if (!rc) return rc.error();
  auto im = ensure_image(*rc, image_cache_root());
  if (!im) return im.error();
  VmBackend vm;
  vm.image = *im;
  vm.accel = choose_accel(vm.image, image_cache_root());
  vm.agent_path = bin_dir + "/vpnlab-agent";
  vm.vmhost_path = bin_dir + "/vpnlab-vmhost";
  return vm;
}

Result<std::unique_ptr<NodeRuntime>> build_guest_runtime(const VmBackend& vm, const Plan& plan,
                                                         const std::string& run_dir, int interrupt_fd) {
  GuestLabOptions o;
  o.run_dir = run_dir;
  o.accel = vm.accel.accel;
  o.memory_mib = vm.memory_mib;
  o.interrupt_fd = interrupt_fd;
  o.agent_path = vm.agent_path;
  o.vmhost_path = vm.vmhost_path;
  auto lab = GuestLab::start(plan, vm.image, o);
  if (!lab) return lab.error();
  std::string accel = std::string(accel_name(vm.accel.accel)) + " (" + vm.accel.reason + ")";
  json image{{"name", vm.image.name},
             {"key", vm.image.key},
             {"kernel", vm.image.kernel_package},
             {"root",
              vm.image.rootfs.empty() ? "the host's, read-only over 9p" : "own tree (mmdebstrap): " + vm.image.rootfs}};
  return std::unique_ptr<NodeRuntime>(new GuestRuntime(std::move(*lab), plan, accel, image));
}

}  // namespace vpnlab
