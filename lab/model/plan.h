// The plan: everything a run will create and do, computed from the topology alone.
// Pure (no syscalls), so `vpnlab plan` works without root and is unit-testable.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lab/base/ipv4.h"
#include "lab/model/topology.h"

namespace vpnlab {

// Every object the lab creates starts with this, so cleanup finds it and nothing else.
inline constexpr const char* kLabPrefix = "vpnlab-";

// One veth pair. End A always lives in a node namespace; end B is in the peer node's
// namespace (two-node link) or in the link's bridge namespace, enslaved to its bridge.
struct PlanVeth {
  std::string link;
  std::string ns_a, if_a;
  std::optional<HostAddr> addr_a;
  std::string ns_b, if_b;
  std::optional<HostAddr> addr_b;
  std::string master_b;  // bridge name in ns_b, empty for a node-to-node pair
  int mtu = 1500;
  // Shaping on the node-side ends' egress (end B too when it is a node): every packet
  // is shaped once, by its sender, as on a real link.
  double rate_bps = 0, delay_ms = 0, jitter_ms = 0, loss_pct = 0;
  bool reorder = false;  // LinkSpec::reorder
  std::string profile;   // LinkSpec::profile, for the plan's text
  bool impaired() const { return delay_ms > 0 || jitter_ms > 0 || loss_pct > 0; }  // netem
};

struct PlanBridge {
  std::string link;
  std::string ns;
  std::string name = "br0";
  int mtu = 1500;
  bool static_neighbours = false;  // [[link]] neighbours = "static"
};

struct PlanNode {
  std::string name;
  std::string ns;
  std::string host;  // backend "hosts": the machine it lives on
  HostAddr overlay;
  bool vpn = true;      // runs the VPN (false: a site client behind `gateway`)
  std::string gateway;  // routed: the VPN node this one reaches the overlay through
  std::vector<int> cpus;
  std::vector<int> load_cpus;
  bool default_cpus = false;  // cpus/load_cpus computed, not written in the topology
  struct Underlay {
    std::string link;
    std::string ifname;
    HostAddr addr;
    bool carrier = false;  // the link reaches another VPN node: tunnel packets cross it
  };
  std::vector<Underlay> underlay;
  std::vector<Ipv4Prefix> sites;  // subnets of the site clients behind this gateway
  bool forwards = false;          // routes others' packets: a gateway, or a chain's node (ip_forward)
  bool relay = false;             // a native relay chain's middle node (in its hop plan)
  bool service = false;           // runs a product's control service (plan_with_services): no test, no tunnel
  // A service node of a native relay chain's hop: the relay's addresses on the hop's links,
  // one per link (a relay server there, Tailscale's DERP, is reached by each end at the
  // address on its own link; neither end has a route to the other).
  std::vector<std::pair<std::string, Ipv4Addr>> served_relays;
  // The VPN node whose tunnel this node's traffic uses: itself, or its gateway.
  const std::string& vpn_node() const { return vpn ? name : gateway; }
};

// A route the lab adds in a node. `tunnel_only`/`baseline_only` routes differ between a
// product run (remote sites through the tunnel) and the no-tunnel baseline (plain routing).
struct PlanRoute {
  std::string node;
  Ipv4Prefix dest;
  Ipv4Addr via;
  enum class When { always, tunnel, baseline } when = When::always;
};

// Backend "hosts": a machine reached over SSH, running vpnlab-host-agent.
struct PlanHost {
  std::string name, ssh, nic, agent;
  std::vector<std::string> ssh_options;
  std::string host_key, known_hosts;  // HostSpec's: how the host's key is trusted
};

// Backend "hosts": a link's end on another host than its peer. The host's `nic` moves into
// the node's namespace as `ifname` with the link's address, and back at teardown.
struct PlanNic {
  std::string link;
  std::string host, nic;
  std::string node, ns, ifname;
  HostAddr addr;
  int mtu = 1500;
};

// One hop of a [[chain]]: a tunnel of its own between neighbours `a` (toward the chain's
// first node) and `b` over `link`, in a /29 of the overlay subnet, on its own port. Sites
// on a's side of the chain are reached through a, the rest through b.
// A native relay chain is one PlanHop from end to end with its relay node in `relays`: one
// overlay in which the product carries a's packets to b through the relay by itself.
struct PlanHop {
  std::string chain;
  int index = 1;           // 1-based along its chain: the interface and port offset
  std::string a, b, link;  // link: a's link toward b (native: toward the relay)
  std::vector<std::string> relays;
  Ipv4Prefix subnet;
  HostAddr addr_a, addr_b;
  int port = 0;
  std::vector<Ipv4Prefix> sites_a, sites_b;
  // Its VPN nodes: the relays, then a and b (the order hop_plan gives them).
  std::vector<std::string> nodes() const;
  bool has(const std::string& node) const;
};

// A product's interface on hop `index` of a chain: hop 1 keeps the spec's name, later hops
// count on from its number ("wg0" -> "wg1", "nebula1" -> "nebula2"; "tun" -> "tun2").
std::string hop_interface(const std::string& base, int index);

struct PlanTest {
  TestSpec spec;
  // Per server: the link the VPN nodes of client and server share (tunnel packets and
  // baseline traffic cross it).
  std::vector<std::string> underlay_links;
  const std::string& underlay_link() const { return underlay_links.front(); }
};

struct Plan {
  std::string run_id;
  std::string lab;
  std::string backend = "netns";  // or "vm": each node a QEMU guest (lab/backends/vm/guest_lab.h)
  std::string image;              // vm: the guest image recipe as written ("" = default)
  std::string ns_prefix;          // "vpnlab-<lab>-<tag>-"
  std::string topology_file;
  Ipv4Prefix overlay_subnet;
  int overlay_mtu = 1400;
  int overlay_port = 51820;
  std::vector<PlanNode> nodes;
  std::vector<PlanBridge> bridges;
  std::vector<PlanVeth> veths;
  std::vector<PlanHost> hosts;  // backend "hosts"
  std::vector<PlanNic> nics;    // backend "hosts": in a host's part (plan_for_host) only
  std::vector<std::string> products;
  // Per product, how many tests it cannot run (a relay chain it has no relay for): their
  // rows say "not run" and take no time. Set with the products' specs (plan_request).
  std::map<std::string, size_t> tests_not_run;
  // Per product, what a lab's bring-up and stop of it take (its spec's bringup_s; set with
  // the specs, plan_request); a product not in it: the backend's figure alone.
  std::map<std::string, double> bringup_s;
  std::vector<PlanTest> tests;
  std::vector<PlanRoute> routes;
  std::vector<PlanHop> hops;              // [[chain]]s: every hop, chain by chain in path order
  bool pinned = true;                     // false with --no-pin: no affinity set anywhere
  std::vector<std::string> pin_notes;     // defaults computed and what each CPU runs
  std::vector<std::string> pin_warnings;  // a test's sender and receiver on one CPU (plan and run say so)
  std::optional<int> threads;             // [bench] threads
  bool interleave = true;
  bool rps = true;  // [bench] rps: steer receive softirq to node cpus
  int samples = 10;
  double duration_s = 10;
  double warmup_s = 2;
  std::optional<double> precision;   // [bench] precision: adaptive sampling unless --samples says otherwise
  double max_time_s = 0;             // its budget ([bench] max_time, or --max-time)
  bool adaptive_by_default = false;  // the file set no samples, duration or precision (BenchSpec)
  // The [bench] sweep's points: each product is brought up once per point and round, on the
  // lab as the point changes it (at_lab_point); each test is at one point (spec.lab_point).
  std::vector<LabPoint> lab_points;
  std::vector<VariantSpec> variants;  // [[variant]]s the sweep names
  // The variant every VPN node gets at this plan's lab point (none: nothing is applied).
  std::optional<VariantSpec> variant;

  const PlanNode* node(const std::string& name) const;
  // All namespaces in creation order: bridges first (veths are created into them), then nodes.
  std::vector<std::string> namespaces() const;
  // A node's address on a link (none when it is not on it).
  Ipv4Addr underlay_address(const std::string& node, const std::string& link) const;
  // Where a test's client reaches server `i`: behind a gateway, its site address; else
  // through a tunnel its overlay address, without one its address on the shared link.
  Ipv4Addr target_address(const PlanTest& test, size_t server, bool tunnel) const;
  std::vector<const PlanNode*> vpn_nodes() const;
  // A link's MTU (0: no such link).
  int link_mtu(const std::string& link) const;
  // The same plan with only the nodes that run the VPN: what a product session sees
  // (site clients behind gateways run no product).
  Plan vpn_only() const;
  bool chained() const { return !hops.empty(); }
  // Hop `i` as a plan of its own: its two nodes with the hop's overlay addresses, subnet and
  // port, each serving the sites on its side of the chain, only the hop's link a carrier.
  // What one product session runs (a relay runs two).
  Plan hop_plan(size_t i) const;
  // The hops from VPN node `from` to VPN node `to` along their chain, in that order (empty:
  // not on one chain).
  std::vector<const PlanHop*> hops_between(const std::string& from, const std::string& to) const;
  // The underlay hops from `from` to `to` along their chain (a native relay counts its
  // relay's two): what a row's `hops` says.
  int hops_crossed(const std::string& from, const std::string& to) const;
  // Estimated wall time of `run` in seconds (lab/model/plan_time.h says of what).
  double estimated_seconds() const;
  // One round's share of it: what one more round (or one less) costs, the run's once-only
  // part left out.
  double estimated_round_seconds() const;
  // The plan of lab point `i`: its tests only, every link's MTU, every shaped link's rate,
  // the threads and the variant the point's, the overlay MTU resolved for it. Without lab
  // points, the plan itself.
  Plan at_lab_point(size_t i) const;
};

struct PlanOptions {
  std::string run_id;                 // results/<run_id>/
  std::string tag;                    // short unique part of namespace names
  std::vector<std::string> products;  // overrides [bench] products when non-empty
  std::optional<int> samples;
  std::optional<double> duration_s;
  int cpu_count = 0;    // 0: do not check CPU numbers nor compute default pinning
  bool no_pin = false;  // --no-pin: nothing pinned, to show what pinning changes
  std::string backend;  // --backend: overrides [lab] backend ("" = the file's)
};

Result<Plan> make_plan(const Topology& topo, const PlanOptions& opts);

// The topology a product with run-scoped services ([[service]]) is built on: `plan` plus a
// node "svc-NAME" per service, joined to each VPN node by a veth pair of its own (a /30 of
// a private subnet no link of the plan uses; not a carrier, so no counter of the tunnel
// proof sees it), with a route to the whole control subnet through it. Nodes cannot reach
// each other that way: the service node forwards nothing. Every VPN node reaches the
// service at one address, service_address(). On a chained plan every hop is an overlay of
// its own, so each hop gets its own service node, "svc-NAME-CHAIN-INDEX", serving only the
// hop's nodes (a node in two hops is refused).
Result<Plan> plan_with_services(const Plan& plan, const std::vector<std::string>& services);
// The node a service runs on: "svc-NAME", or for hop `hop` of a chained plan "svc-NAME-CHAIN-INDEX".
std::string service_node_name(const std::string& service, const PlanHop* hop = nullptr);
// Where `node` reaches service `service` of a plan_with_services plan ("" if it does not).
std::string service_address(const Plan& plan, const std::string& service, const std::string& node);

// Backend "hosts": the part of `plan` that host `host` builds: its nodes, the bridges and
// veths among them, their routes, and for each link to another host a PlanNic.
Plan plan_for_host(const Plan& plan, const std::string& host);

// Human-readable listing of a plan (for `vpnlab plan`).
std::string describe_plan(const Plan& plan);

}  // namespace vpnlab
