// The VM backend behind NodeRuntime: each node a guest (GuestLab), every node operation a
// request to its agent, which runs the same launcher and netlink code as the netns backend
// does on this host. Process exits become events through a watcher that asks the agents.
#pragma once
#include <memory>
#include <string>

#include "lab/backends/vm/accel.h"
#include "lab/backends/vm/guest_lab.h"
#include "lab/backends/vm/image.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

// What every round of a run shares: the image, the accelerator and the helper binaries.
struct VmBackend {
  Image image;
  AccelChoice accel;
  std::string agent_path, vmhost_path;
  int memory_mib = 512;
};

// Builds the image if needed and picks the accelerator (once per run).
Result<VmBackend> prepare_vm_backend(const std::string& recipe, const std::string& bin_dir);

Result<std::unique_ptr<NodeRuntime>> build_guest_runtime(const VmBackend& vm, const Plan& plan,
                                                         const std::string& run_dir, int interrupt_fd);

}  // namespace vpnlab
