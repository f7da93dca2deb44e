#include "lab/app/backends.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "lab/backends/hosts/hosts_runtime.h"
#include "lab/backends/netns/live_topology.h"
#include "lab/backends/netns/netns_runtime.h"
#include "lab/backends/vm/guest_lab.h"
#include "lab/backends/vm/guest_runtime.h"
#include "lab/backends/vm/image_command.h"
#include "lab/base/fs_util.h"
#include "lab/kernel/namespace.h"
#include "lab/model/product_spec.h"
#include "lab/model/topology.h"
#include "lab/run/interrupt.h"

namespace vpnlab {
namespace {

// What a kept lab holds on this host: the node namespaces, or the one VM-host namespace in
// which the guests' QEMU processes and their helper live.
std::vector<std::string> node_namespaces(const Plan& plan) { return plan.namespaces(); }
std::vector<std::string> vmhost_namespace(const Plan& plan) { return {plan.ns_prefix + "vmhost"}; }

// The directory the kept guests share with this host (their run directory while up).
std::string guest_share_dir(const Plan& plan) { return vm_dir_of(plan) + "/up"; }

Status build_namespaces_up(const Plan& plan, const std::string&) {
  BuildTimings timings;
  auto topo = LiveTopology::build(plan, &timings);
  if (!topo) return topo.error();
  // The namespaces outlive this process: drop our handles without tearing down.
  (void)topo.value().release();
  std::cout << "up: lab '" << plan.lab << "', " << plan.namespaces().size() << " namespaces in "
            << timings.namespaces_ms + timings.links_ms << " ms\n";
  return ok_status();
}

Status boot_guests(const Plan& plan, const std::string& bin_dir) {
  auto vm = prepare_vm_backend(image_recipe_path(plan.image), bin_dir);
  if (!vm) return vm.error();
  GuestLabOptions o;
  o.run_dir = guest_share_dir(plan);
  o.accel = vm->accel.accel;
  o.memory_mib = vm->memory_mib;
  o.interrupt_fd = install_interrupt_handlers();
  o.agent_path = vm->agent_path;
  o.vmhost_path = vm->vmhost_path;
  auto lab = GuestLab::start(plan, vm->image, o);  // on failure it has removed what it made
  if (!lab) return lab.error();
  if (auto s = (*lab)->keep(); !s) return s.error();  // the destructor then tears down
  double slowest = 0;
  for (const auto& g : (*lab)->guests()) slowest = std::max(slowest, g.boot_s);
  std::cout << "up: lab '" << plan.lab << "', " << plan.nodes.size() << " guests (" << accel_name(vm->accel.accel)
            << ", image " << vm->image.name << "), the slowest ready after " << static_cast<int>(slowest * 1000) << " ms\n";
  return ok_status();
}

Result<int> exec_in_namespace(const PlanNode& node, const std::vector<std::string>& argv) {
  UniqueFd ns(::open((std::string(kNetnsDir) + "/" + node.ns).c_str(), O_RDONLY | O_CLOEXEC));
  if (!ns.valid()) return make_error("cannot open namespace " + node.ns + ": " + errno_text(errno), "is the lab still up? 'vpnlab up' again");
  if (::setns(ns.get(), CLONE_NEWNET) < 0) return make_error("cannot enter namespace " + node.ns + ": " + errno_text(errno));
  std::vector<char*> args;
  for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  return make_error("cannot run '" + argv[0] + "' in node '" + node.name + "': " + errno_text(errno),
                    errno == ENOENT ? "install it (scripts/install-deps.sh installs what the lab calls) or give its full path" : "");
}

Result<int> exec_netns(const Plan&, const PlanNode& node, const std::vector<std::string>& argv) { return exec_in_namespace(node, argv); }

Result<int> exec_in_guest(const Plan& plan, const PlanNode& node, const std::vector<std::string>& argv) {
  int interrupt_fd = install_interrupt_handlers();
  auto agent = AgentClient::connect(agent_socket_of(plan, node.name), 10, interrupt_fd, nullptr);
  if (!agent) return with_context(agent.error(), "guest '" + node.name + "'");
  // The guest writes the output into the directory it shares with this host.
  std::string base = guest_share_dir(plan) + "/exec-" + std::to_string(getpid());
  AgentClient::Spawn spec;
  spec.argv = argv;
  spec.stdout_path = base + ".out";
  spec.stderr_path = base + ".err";
  auto id = (*agent)->spawn(spec);
  if (!id) return with_context(id.error(), "guest '" + node.name + "': " + argv[0]);
  auto status = (*agent)->wait(*id, 1e9, interrupt_fd);
  if (!status || !status->has_value()) (void)(*agent)->stop(*id, 1000);
  std::cout << read_file_text(spec.stdout_path) << std::flush;
  std::cerr << read_file_text(spec.stderr_path) << std::flush;
  std::error_code ec;
  std::filesystem::remove(spec.stdout_path, ec);
  std::filesystem::remove(spec.stderr_path, ec);
  if (!status) return interrupted() ? 128 + interrupt_signal() : Result<int>(status.error());
  return status->value_or(-1);
}

std::string namespace_hint(const Plan&, const PlanNode& n, const std::string& file) {
  return "ip netns exec " + n.ns + " CMD...  or  vpnlab exec " + file + " " + n.name + " -- CMD...";
}

std::string guest_hint(const Plan& plan, const PlanNode& n, const std::string& file) {
  return "vpnlab exec " + file + " " + n.name + " -- CMD...  (console: " + guest_share_dir(plan) + "/vm/" + n.name + ".console.log)";
}

Result<RuntimeFactory> prepare_netns(const Plan&, const RunOptions&, const std::string&) { return RuntimeFactory(build_netns_runtime); }

// The image (built if needed) and the accelerator, once per run; every round's guests boot from them.
Result<RuntimeFactory> prepare_vm(const Plan& plan, const RunOptions&, const std::string& bin_dir) {
  spdlog::info("vm backend: preparing the guest image and probing KVM");
  auto prepared = prepare_vm_backend(image_recipe_path(plan.image), bin_dir);
  if (!prepared) return prepared.error();
  auto vm = std::make_shared<VmBackend>(std::move(*prepared));
  spdlog::info("vm backend: image {} (kernel {}), accel {}: {}", vm->image.name, vm->image.kernel_release, accel_name(vm->accel.accel),
               vm->accel.reason);
  return RuntimeFactory([vm](const Plan& p, const std::string& run_dir, int interrupt_fd) { return build_guest_runtime(*vm, p, run_dir, interrupt_fd); });
}

// Every host checked (ssh, agent version, nic, CPUs, the products there) before a round starts.
Result<RuntimeFactory> prepare_hosts(const Plan& plan, const RunOptions& opts, const std::string& bin_dir) {
  HostsOptions hosts{bin_dir + "/vpnlab-host-agent", {}};
  for (const auto& name : plan.products) {
    auto spec = load_product(opts.products_dir, name);
    if (!spec) return spec.error();
    hosts.products.push_back({spec->name, spec->binaries, spec->version_argv});
  }
  if (auto s = check_hosts(plan, hosts); !s) return s.error();
  return RuntimeFactory([hosts](const Plan& p, const std::string& run_dir, int interrupt_fd) { return build_hosts_runtime(p, run_dir, hosts, interrupt_fd); });
}

}  // namespace

const std::vector<BackendEntry>& backend_table() {
  static const std::vector<BackendEntry> table = {
      {"netns", prepare_netns, build_namespaces_up, "", node_namespaces, namespace_hint, exec_netns},
      {"vm", prepare_vm, boot_guests, "", vmhost_namespace, guest_hint, exec_in_guest},
      {"hosts", prepare_hosts, nullptr, "'up' keeps namespaces or guests on this machine, not on real hosts", nullptr, nullptr, nullptr},
  };
  return table;
}

const BackendEntry& backend_entry(const std::string& name) {
  for (const auto& b : backend_table())
    if (b.name == name) return b;
  return backend_table().front();  // unreachable: a plan's backend was checked against backend_names()
}

}  // namespace vpnlab
