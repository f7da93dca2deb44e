#include "lab/backends/vm/vm_entry.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "lab/backends/vm/domain_xml.h"
#include "lab/backends/vm/guest_lab.h"
#include "lab/backends/vm/guest_runtime.h"
#include "lab/backends/vm/image_recipe.h"
#include "lab/base/fs_util.h"

namespace vpnlab {
namespace {

// The directory the kept guests share with this host (their run directory while up).
std::string guest_share_dir(const Plan& plan) { return vm_dir_of(plan) + "/up"; }

// The image (built if needed) and the accelerator, once per run; every round's guests boot from them.
Result<RuntimeFactory> prepare_vm(const Plan& plan, const BackendContext& ctx) {
  spdlog::info("vm backend: preparing the guest image and probing KVM");
  auto prepared = prepare_vm_backend(image_recipe_path(plan.image), ctx.bin_dir);
  if (!prepared) return prepared.error();
  auto vm = std::make_shared<VmBackend>(std::move(*prepared));
  spdlog::info("vm backend: image {} (kernel {}), accel {}: {}", vm->image.name, vm->image.kernel_release,
               accel_name(vm->accel.accel), vm->accel.reason);
  return RuntimeFactory([vm](const Plan& p, const std::string& run_dir, int interrupt_fd) {
    return build_guest_runtime(*vm, p, run_dir, interrupt_fd);
  });
}

Status boot_guests(const Plan& plan, const BackendContext& ctx) {
  auto vm = prepare_vm_backend(image_recipe_path(plan.image), ctx.bin_dir);
  if (!vm) return vm.error();
  GuestLabOptions o;
  o.run_dir = guest_share_dir(plan);
  o.accel = vm->accel.accel;
  o.memory_mib = vm->memory_mib;
  o.interrupt_fd = ctx.interrupt_fd;
  o.agent_path = vm->agent_path;
  o.vmhost_path = vm->vmhost_path;
  auto lab = GuestLab::start(plan, vm->image, o);  // on failure it has removed what it made
  if (!lab) return lab.error();
  if (auto s = (*lab)->keep(); !s) return s.error();  // the destructor then tears down
  double slowest = 0;
  for (const auto& g : (*lab)->guests()) slowest = std::max(slowest, g.boot_s);
  std::cout << "up: lab '" << plan.lab << "', " << plan.nodes.size() << " guests (" << accel_name(vm->accel.accel)
            << ", image " << vm->image.name << "), the slowest ready after " << static_cast<int>(slowest * 1000)
            << " ms\n";
  return ok_status();
}

// A kept lab of guests holds one namespace on this host: the one its QEMU processes and
// their helper live in.
std::vector<std::string> vmhost_namespace(const Plan& plan) { return {plan.ns_prefix + "vmhost"}; }

std::string guest_hint(const Plan& plan, const PlanNode& n, const std::string& file) {
  return "vpnlab exec " + file + " " + n.name + " -- CMD...  (console: " + guest_share_dir(plan) + "/vm/" + n.name +
         ".console.log)";
}

// The guest's agent runs the command; its output, written into the directory the guest
// shares with this host, is printed when it ends (no stdin).
Result<int> exec_in_guest(const Plan& plan, const PlanNode& node, const std::vector<std::string>& argv,
                          int interrupt_fd) {
  auto agent = AgentClient::connect(agent_socket_of(plan, node.name), 10, interrupt_fd, nullptr);
  if (!agent) return with_context(agent.error(), "guest '" + node.name + "'");
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
  if (!status) return status.error();
  return status->value_or(-1);
}

}  // namespace

const BackendEntry& vm_backend_entry() {
  static const BackendEntry entry = {"vm", prepare_vm, boot_guests, "", vmhost_namespace, guest_hint, exec_in_guest};
  return entry;
}

}  // namespace vpnlab
