#include "lab/backends/hosts/hosts_entry.h"

#include "lab/backends/hosts/hosts_runtime.h"
#include "lab/model/product_spec.h"

namespace vpnlab {
namespace {

// The host agent beside vpnlab, and the plan's products as each host must have them. A
// product that does not load is an error, or with `skip_unloadable` left out (doctor: the
// run names it).
Result<HostsOptions> hosts_options(const Plan& plan, const BackendContext& ctx, bool skip_unloadable = false) {
  HostsOptions hosts{ctx.bin_dir + "/vpnlab-host-agent", {}};
  for (const auto& name : plan.products) {
    auto spec = load_product(ctx.products_dir, name);
    if (!spec && skip_unloadable) continue;
    if (!spec) return spec.error();
    hosts.products.push_back({spec->name, spec->binaries, spec->version_argv});
  }
  return hosts;
}

// Every host checked (ssh, agent version, nic, CPUs, the products there) before a round starts.
Result<RuntimeFactory> prepare_hosts(const Plan& plan, const BackendContext& ctx) {
  auto options = hosts_options(plan, ctx);
  if (!options) return options.error();
  const HostsOptions hosts = std::move(*options);
  if (auto s = check_hosts(plan, hosts); !s) return s.error();
  return RuntimeFactory([hosts](const Plan& p, const std::string& run_dir, int interrupt_fd) {
    return build_hosts_runtime(p, run_dir, hosts, interrupt_fd);
  });
}

// cleanup FILE: each host's namespaces and the NICs a killed agent left in them (no
// product is needed for that).
Result<std::vector<std::string>> cleanup_on_hosts(const Plan& plan, const BackendContext& ctx, bool dry_run) {
  return cleanup_hosts(plan, HostsOptions{ctx.bin_dir + "/vpnlab-host-agent", {}}, dry_run);
}

// doctor FILE: each host as a run would find it.
nlohmann::json probe_on_hosts(const Plan& plan, const BackendContext& ctx) {
  return probe_hosts(plan, hosts_options(plan, ctx, /*skip_unloadable=*/true).value());
}

}  // namespace

// 'up' is refused: the lab would be on other machines.
const BackendEntry& hosts_backend_entry() {
  static const BackendEntry entry = {
      "hosts",       prepare_hosts, nullptr, "'up' keeps namespaces or guests on this machine, not on real hosts",
      nullptr,       nullptr,       nullptr, cleanup_on_hosts,
      probe_on_hosts};
  return entry;
}

}  // namespace vpnlab
