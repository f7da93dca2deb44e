#include "lab/backends/hosts/hosts_entry.h"

#include "lab/backends/hosts/hosts_runtime.h"
#include "lab/model/product_spec.h"

namespace vpnlab {
namespace {

// Every host checked (ssh, agent version, nic, CPUs, the products there) before a round starts.
Result<RuntimeFactory> prepare_hosts(const Plan& plan, const BackendContext& ctx) {
  HostsOptions hosts{ctx.bin_dir + "/vpnlab-host-agent", {}};
  for (const auto& name : plan.products) {
    auto spec = load_product(ctx.products_dir, name);
    if (!spec) return spec.error();
    hosts.products.push_back({spec->name, spec->binaries, spec->version_argv});
  }
  if (auto s = check_hosts(plan, hosts); !s) return s.error();
  return RuntimeFactory([hosts](const Plan& p, const std::string& run_dir, int interrupt_fd) { return build_hosts_runtime(p, run_dir, hosts, interrupt_fd); });
}

}  // namespace

// 'up' is refused: the lab would be on other machines.
const BackendEntry& hosts_backend_entry() {
  static const BackendEntry entry = {"hosts", prepare_hosts, nullptr, "'up' keeps namespaces or guests on this machine, not on real hosts",
                                     nullptr, nullptr, nullptr};
  return entry;
}

}  // namespace vpnlab
