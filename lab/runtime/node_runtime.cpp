#include "lab/runtime/node_runtime.h"

namespace vpnlab {

Result<RunOutcome> NodeRuntime::run(const std::string& node, const SpawnSpec& spec, bool private_run, double timeout_s,
                                    int interrupt_fd) {
  auto p = spawn(node, spec, private_run);
  if (!p) return p.error();
  return finish_run(**p, timeout_s, interrupt_fd);
}

Result<std::vector<NodeRuntime::MachineCpu>> NodeRuntime::cpu_times() {
  return std::vector<MachineCpu>{{"", read_cpu_times(), read_cpu_times_per_cpu()}};
}

Result<std::map<std::string, bool>> NodeRuntime::link_offloads(const std::string&, const std::string&) {
  return make_error("offloads are not read on the " + backend() + " backend");
}

Result<SweepResult> NodeRuntime::sweep_mesh(const Plan&, double, int) {
  return make_error("the " + backend() + " backend cannot probe a whole mesh at once", "mesh-scale runs ('vpnlab scale') use the netns backend");
}

Status NodeRuntime::set_root_qdisc(const std::string&, const std::string&, const std::string&) {
  return make_error("the " + backend() + " backend does not replace qdiscs", "a variant's 'qdisc' runs on the netns backend");
}

Status NodeRuntime::apply_nftables(const std::string&, const std::string&) {
  return make_error("the " + backend() + " backend does not apply nftables rules", "a variant's 'nft' rules run on the netns backend");
}

Result<NodeRuntime::Counted> NodeRuntime::variant_packets(const std::string&) {
  return make_error("the " + backend() + " backend does not read nftables counters");
}

}  // namespace vpnlab
