#include "lab/runtime/node_runtime.h"

namespace vpnlab {

Result<RunOutcome> NodeRuntime::run(const std::string& node, const SpawnSpec& spec, bool private_run, double timeout_s,
                                    int interrupt_fd) {
  auto p = spawn(node, spec, private_run);
  if (!p) return p.error();
  return finish_run(**p, timeout_s, interrupt_fd);
}

}  // namespace vpnlab
