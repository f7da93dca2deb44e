#include "lab/runtime/node_runtime.h"

namespace vpnlab {

Result<ProcessOutcome> NodeRuntime::run(const std::string& node, const SpawnSpec& spec, bool private_run,
                                        double timeout_s, int interrupt_fd) {
  auto p = spawn(node, spec, private_run);
  if (!p) return p.error();
  return finish_run(**p, timeout_s, interrupt_fd);
}

// What a backend does not override answers that it does not do it here: a new backend
// overrides only what it has (the essentials above stay pure).
Status NodeRuntime::create_link_of_kind(const std::string&, const std::string& ifname, const std::string& kind,
                                        const LinkOptions&) {
  return make_error("the " + backend() + " backend does not create links of a kind ('" + kind + "' for " + ifname +
                    ")");
}

Status NodeRuntime::delete_link(const std::string&, const std::string& ifname) {
  return make_error("the " + backend() + " backend does not delete links (" + ifname + ")");
}

Status NodeRuntime::set_sysctls(const std::string&, const Sysctls&) {
  return make_error("the " + backend() + " backend does not set sysctls");
}

Status NodeRuntime::set_rps(const std::string&, const std::vector<std::string>&, const std::vector<int>&) {
  return make_error("the " + backend() + " backend does not steer received packets", "run with --no-pin");
}

Status NodeRuntime::set_offloads(const std::string&, const std::string& ifname, bool) {
  return make_error("the " + backend() + " backend does not set offloads (" + ifname + ")");
}

// Optional measurements: none here (the row says what is missing, `limits`).
Result<std::unique_ptr<LatencyProbe>> NodeRuntime::latency_probe(const std::string&, Ipv4Addr, int, int) {
  return std::unique_ptr<LatencyProbe>();
}

Result<std::unique_ptr<PayloadWatch>> NodeRuntime::payload_watch(const std::string&, const std::string&,
                                                                 const std::string&, int) {
  return std::unique_ptr<PayloadWatch>();
}

nlohmann::json NodeRuntime::record(const std::string&) { return nlohmann::json::object(); }

Result<std::vector<NodeRuntime::MachineCpu>> NodeRuntime::cpu_times() {
  return std::vector<MachineCpu>{{"", read_cpu_times(), read_cpu_times_per_cpu()}};
}

Result<std::map<std::string, bool>> NodeRuntime::link_offloads(const std::string&, const std::string&) {
  return make_error("offloads are not read on the " + backend() + " backend");
}

Result<SweepResult> NodeRuntime::sweep_mesh(const Plan&, double, int) {
  return make_error("the " + backend() + " backend cannot probe a whole mesh at once",
                    "mesh-scale runs ('vpnlab scale') use the netns backend");
}

Status NodeRuntime::set_root_qdisc(const std::string&, const std::string&, const std::string&) {
  return make_error("the " + backend() + " backend does not replace qdiscs",
                    "a variant's 'qdisc' runs on the netns backend");
}

Status NodeRuntime::apply_nftables(const std::string&, const std::string&) {
  return make_error("the " + backend() + " backend does not apply nftables rules",
                    "a variant's 'nft' rules run on the netns backend");
}

Result<NodeRuntime::Counted> NodeRuntime::variant_packets(const std::string&) {
  return make_error("the " + backend() + " backend does not read nftables counters");
}

}  // namespace vpnlab
