// The netns backend behind NodeRuntime: every call goes straight to the node's network
// namespace (and, for products, its private mount namespace) on this host.
#include <nlohmann/json.hpp>

#include "lab/backends/netns/netns_runtime.h"

#include "lab/backends/netns/live_topology.h"
#include "lab/base/fs_util.h"
#include "lab/kernel/capabilities.h"
#include "lab/kernel/latency_probe.h"
#include "lab/kernel/mesh_sweep.h"
#include "lab/kernel/namespace.h"
#include "lab/kernel/nftables.h"
#include "lab/kernel/offloads.h"
#include "lab/kernel/outside_load.h"
#include "lab/kernel/payload_watch.h"
#include "lab/kernel/probes.h"
#include "lab/kernel/rps.h"
#include "lab/kernel/shaping.h"
#include "lab/kernel/sysctl.h"

namespace vpnlab {

namespace {

class NetnsRuntime : public NodeRuntime {
 public:
  explicit NetnsRuntime(std::unique_ptr<LiveTopology> topo) : topo_(std::move(topo)) {}
  std::string backend() const override { return "netns"; }

  Result<std::unique_ptr<NodeProcess>> spawn(const std::string& node, SpawnSpec spec, bool private_run) override {
    spec.netns_fd = topo_->ns_of_node(node).fd.get();
    if (private_run) {
      auto mnt = topo_->mount_ns_of_node(node);
      if (!mnt) return mnt.error();
      spec.mntns_fd = *mnt;
    }
    auto c = Child::spawn(spec);
    if (!c) return c.error();
    return std::unique_ptr<NodeProcess>(std::move(*c));
  }
  Status wait_for_link(const std::string& node, const std::string& ifname, double timeout_s,
                       int interrupt_fd) override {
    Netns& ns = topo_->ns_of_node(node);
    return vpnlab::wait_for_link(ns.fd.get(), ns.sock.get(), ifname, timeout_s, interrupt_fd);
  }
  Status create_link_of_kind(const std::string& node, const std::string& ifname, const std::string& kind,
                             const LinkOptions& options) override {
    return vpnlab::create_link_of_kind(topo_->ns_of_node(node).sock.get(), ifname, kind, options);
  }
  Status delete_link(const std::string& node, const std::string& ifname) override {
    return vpnlab::delete_link(topo_->ns_of_node(node).sock.get(), ifname);
  }
  Status set_sysctls(const std::string& node, const Sysctls& settings) override {
    Status result = ok_status();
    Status joined = run_in_netns(topo_->ns_of_node(node).fd.get(), [&] {
      if (auto applied = apply_sysctls(settings); !applied) result = applied.error();
    });
    return joined ? result : joined;
  }
  Status configure_link(const std::string& node, const std::string& ifname, const HostAddr& addr, int mtu) override {
    nl_sock* sock = topo_->ns_of_node(node).sock.get();
    if (auto s = add_address(sock, ifname, addr); !s) return s;
    return set_link(sock, ifname, mtu, true);
  }
  Result<LinkInfo> get_link(const std::string& node, const std::string& ifname) override {
    return vpnlab::get_link(topo_->ns_of_node(node).sock.get(), ifname);
  }
  Result<SweepResult> sweep_mesh(const Plan& plan, double timeout_s, int interrupt_fd) override {
    std::vector<SweepSource> sources;
    for (const auto& n : plan.nodes) {
      if (!n.vpn) continue;
      SweepSource src{n.name, n.overlay.addr, topo_->ns_of_node(n.name).fd.get(), {}, {}};
      for (const auto& peer : plan.nodes)
        if (peer.vpn && peer.name != n.name) {
          src.targets.push_back(peer.overlay.addr);
          src.target_names.push_back(peer.name);
        }
      sources.push_back(std::move(src));
    }
    return sweep_until_answered(sources, timeout_s, interrupt_fd);
  }
  Status ping(const std::string& node, Ipv4Addr target, double timeout_s, int interrupt_fd, int payload,
              bool df) override {
    return ping_until_answered(topo_->ns_of_node(node).fd.get(), target, timeout_s, interrupt_fd, nullptr, payload, df);
  }
  Status wait_tcp_listening(const std::string& node, int port, double timeout_s, int interrupt_fd) override {
    return vpnlab::wait_tcp_listening(topo_->ns_of_node(node).fd.get(), port, timeout_s, interrupt_fd);
  }
  Status add_routes(const Plan& plan, PlanRoute::When when) override { return topo_->add_routes(plan, when); }
  Status set_rps(const std::string& node, const std::vector<std::string>& ifnames,
                 const std::vector<int>& cpus) override {
    auto mnt = topo_->mount_ns_of_node(node);
    if (!mnt) return mnt.error();
    return vpnlab::set_rps(topo_->ns_of_node(node).fd.get(), *mnt, ifnames, cpus);
  }
  Result<std::map<std::string, bool>> link_offloads(const std::string& node, const std::string& ifname) override {
    return read_offloads(topo_->ns_of_node(node).fd.get(), ifname);
  }
  Status set_offloads(const std::string& node, const std::string& ifname, bool on) override {
    return set_segmentation_offloads(topo_->ns_of_node(node).fd.get(), ifname, on);
  }
  Status set_root_qdisc(const std::string& node, const std::string& ifname, const std::string& kind) override {
    return vpnlab::set_root_qdisc(topo_->ns_of_node(node).sock.get(), ifname, kind);
  }
  Status apply_nftables(const std::string& node, const std::string& ruleset) override {
    auto tables = nft_apply(topo_->ns_of_node(node).fd.get(), ruleset);
    if (!tables) return tables.error();
    variant_tables_[node] = std::move(tables.value());
    return ok_status();
  }
  Result<Counted> variant_packets(const std::string& node) override {
    auto counted = nft_counted(topo_->ns_of_node(node).fd.get(), variant_tables_[node]);
    if (!counted) return counted.error();
    return Counted{counted->packets, counted->counters};
  }
  Result<std::unique_ptr<LatencyProbe>> latency_probe(const std::string& node, Ipv4Addr target, int interval_ms,
                                                      int count) override {
    return IcmpLatencyProbe::start(topo_->ns_of_node(node).fd.get(), target, interval_ms, count);
  }
  Result<std::unique_ptr<PayloadWatch>> payload_watch(const std::string& node, const std::string& ifname,
                                                      const std::string& pattern, int port) override {
    Netns& ns = topo_->ns_of_node(node);
    auto index = link_index(ns.sock.get(), ifname);
    if (!index) return index.error();
    return PacketPayloadWatch::start(ns.fd.get(), *index, pattern, port);
  }
  std::string limits() const override { return ""; }
  bool can_watch_payload() const override { return true; }
  std::vector<uint64_t> inodes() const override { return topo_->inodes(); }
  // This host's kernel: the lab's namespaces live here.
  int wait_outside_idle(int timeout_ms) override { return vpnlab::wait_outside_idle(inodes(), timeout_ms); }
  Status settle_after_teardown(double timeout_s) override { return wait_kernel_netns_cleanup(timeout_s); }

  nlohmann::json record(const std::string& run_dir) override {
    nlohmann::json sysctls;
    for (const auto& ns : topo_->namespaces()) sysctls[ns.name] = ns.sysctls;
    (void)write_file(run_dir + "/sysctls.json", sysctls.dump(2) + "\n", 0640);
    nlohmann::json offloads;
    for (const auto& ns : topo_->namespaces())
      if (auto links = list_links(ns.sock.get()))
        for (const auto& l : *links)
          if (l.name != "lo")
            if (auto o = read_offloads(ns.fd.get(), l.name)) offloads[ns.name][l.name] = o.value();
    (void)write_file(run_dir + "/offloads.json", offloads.dump(2) + "\n", 0640);
    return nlohmann::json::object();
  }
  Audit audit() override {
    auto a = topo_->audit();
    return Audit{a.leftovers, a.run_files};
  }
  Status teardown(double timeout_s) override { return topo_->teardown(timeout_s); }

 private:
  std::unique_ptr<LiveTopology> topo_;
  std::map<std::string, std::vector<NftTable>> variant_tables_;  // per node: the tables its variant added
};

}  // namespace

Result<std::unique_ptr<NodeRuntime>> build_netns_runtime(const Plan& plan, const std::string&, int) {
  auto topo = LiveTopology::build(plan);
  if (!topo) return topo.error();
  return std::unique_ptr<NodeRuntime>(new NetnsRuntime(std::move(*topo)));
}

}  // namespace vpnlab
