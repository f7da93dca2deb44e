#include "lab/model/plan.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "lab/base/tbf.h"

#include <sstream>
#include "lab/model/impairment_profiles.h"
#include "lab/model/plan_parts.h"
#include "lab/model/plan_time.h"
#include "lab/model/sweep.h"
#include "lab/model/topology_parse.h"
#include "lab/model/traffic.h"
#include "lab/model/variant_facets.h"

namespace vpnlab {

const PlanNode* Plan::node(const std::string& name) const {
  for (const auto& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

std::vector<std::string> Plan::namespaces() const {
  std::vector<std::string> out;
  for (const auto& b : bridges) out.push_back(b.ns);
  for (const auto& n : nodes) out.push_back(n.ns);
  return out;
}

Ipv4Addr Plan::underlay_address(const std::string& node_name, const std::string& link) const {
  const PlanNode* n = node(node_name);
  for (const auto& u : n->underlay)
    if (u.link == link) return u.addr.addr;
  return Ipv4Addr{};
}

double Plan::estimated_seconds() const { return estimate_run_time(*this).total(); }

double Plan::estimated_round_seconds() const {
  const RunTimeEstimate e = estimate_run_time(*this);
  return samples > 0 ? (e.total() - e.once_s) / samples : 0;
}

Plan Plan::at_lab_point(size_t i) const {
  if (i >= lab_points.size()) return *this;
  Plan out = *this;
  const LabPoint& point = lab_points[i];
  out.tests.clear();
  for (const auto& t : tests)
    if (t.spec.lab_point == static_cast<int>(i)) out.tests.push_back(t);
  if (point.underlay_mtu > 0) {
    for (auto& v : out.veths) v.mtu = point.underlay_mtu;
    for (auto& b : out.bridges) b.mtu = point.underlay_mtu;
  }
  if (point.overlay_mtu > 0) out.overlay_mtu = point.overlay_mtu;
  if (point.rate_bps > 0)
    for (auto& v : out.veths)
      if (v.rate_bps > 0) v.rate_bps = point.rate_bps;
  if (point.threads) out.threads = point.threads;
  for (const auto& v : variants)
    if (v.name == point.variant) out.variant = v;
  out.lab_points.clear();
  return out;
}

Ipv4Addr Plan::target_address(const PlanTest& test, size_t server, bool tunnel) const {
  const PlanNode* s = node(test.spec.servers.at(server));
  if (!s->vpn) {
    for (const auto& u : s->underlay)
      if (underlay_address(s->gateway, u.link) != Ipv4Addr{}) return u.addr.addr;
  }
  if (tunnel) return s->overlay.addr;
  Ipv4Addr on_link = underlay_address(s->name, test.underlay_links.at(server));
  // A native relay chain's far end is not on the client's link: its own toward the relay.
  for (const auto& h : hops)
    if (on_link == Ipv4Addr{} && !h.relays.empty() && (h.a == s->name || h.b == s->name))
      on_link = underlay_address(s->name, shared_link(*s, *node(h.relays.front())));
  return on_link;
}

int Plan::link_mtu(const std::string& link) const {
  for (const auto& v : veths)
    if (v.link == link) return v.mtu;
  return 0;
}

std::vector<const PlanNode*> Plan::vpn_nodes() const {
  std::vector<const PlanNode*> out;
  for (const auto& n : nodes)
    if (n.vpn) out.push_back(&n);
  return out;
}

Plan Plan::vpn_only() const {
  Plan out = *this;
  out.nodes.clear();
  for (const auto* n : vpn_nodes()) out.nodes.push_back(*n);
  return out;
}

Error plan_error(const Topology& topo, SourcePos pos, std::string message, std::string hint) {
  Error e = make_error(std::move(message), std::move(hint));
  e.file = topo.file;
  e.line = pos.line;
  e.column = pos.column;
  return e;
}

namespace {

Status check_cpus(const Topology& topo, int cpu_count) {
  if (cpu_count <= 0) return ok_status();
  for (const auto& n : topo.nodes)
    for (const auto* list : {&n.cpus, &n.load_cpus})
      for (int cpu : *list)
        if (cpu >= cpu_count)
          return plan_error(topo, n.pos, "node '" + n.name + "': CPU " + std::to_string(cpu) + " does not exist",
                            "this machine has CPUs 0.." + std::to_string(cpu_count - 1));
  return ok_status();
}

// Each node with its namespace and overlay address; each link a veth pair (two nodes) or a
// bridge in a namespace of its own with a veth per node.
void plan_nodes_and_links(const Topology& topo, Plan* plan) {
  for (size_t i = 0; i < topo.nodes.size(); ++i) {
    const NodeSpec& spec = topo.nodes[i];
    PlanNode n;
    n.name = spec.name;
    n.ns = plan->ns_prefix + "n-" + spec.name;
    n.overlay = HostAddr{*topo.overlay_subnet.host(i + 1), topo.overlay_subnet.length};
    n.cpus = spec.cpus;
    n.load_cpus = spec.load_cpus;
    if (backend_traits(plan->backend).remote_hosts) n.host = spec.host;
    plan->nodes.push_back(std::move(n));
  }
  auto node_of = [&](const std::string& name) {
    return std::find_if(plan->nodes.begin(), plan->nodes.end(), [&](const PlanNode& n) { return n.name == name; });
  };

  for (const LinkSpec& link : topo.links) {
    int mtu = link.mtu.value_or(1500);
    auto addr = [&](size_t k) { return HostAddr{*link.subnet.host(k + 1), link.subnet.length}; };
    if (link.nodes.size() == 2) {
      auto a = node_of(link.nodes[0]);
      auto b = node_of(link.nodes[1]);
      plan->veths.push_back(PlanVeth{link.name, a->ns, link.name, addr(0), b->ns, link.name, addr(1), "", mtu,
                                     link.rate_bps, link.delay_ms, link.jitter_ms, link.loss_pct, link.reorder,
                                     link.profile});
      a->underlay.push_back({link.name, link.name, addr(0)});
      b->underlay.push_back({link.name, link.name, addr(1)});
      continue;
    }
    PlanBridge br{link.name, plan->ns_prefix + "l-" + link.name, "br0", mtu, link.static_neighbours};
    for (size_t k = 0; k < link.nodes.size(); ++k) {
      auto n = node_of(link.nodes[k]);
      plan->veths.push_back(PlanVeth{link.name, n->ns, link.name, addr(k), br.ns, "p" + std::to_string(k), std::nullopt,
                                     br.name, mtu, link.rate_bps, link.delay_ms, link.jitter_ms, link.loss_pct,
                                     link.reorder, link.profile});
      n->underlay.push_back({link.name, link.name, addr(k)});
    }
    plan->bridges.push_back(std::move(br));
  }
}

}  // namespace

Result<Plan> make_plan(const Topology& topo, const PlanOptions& opts) {
  if (auto s = check_cpus(topo, opts.cpu_count); !s) return s.error();
  Plan plan;
  plan.run_id = opts.run_id;
  plan.lab = topo.lab_name;
  plan.backend = opts.backend.empty() ? topo.backend : opts.backend;
  const BackendTraits& traits = backend_traits(plan.backend);
  if (traits.remote_hosts && !backend_traits(topo.backend).remote_hosts)
    if (auto s = check_hosts_layout(topo); !s) return s.error();
  // The file's backend applies its variants (validate checked); --backend may not move them.
  if (!traits.variants && !topo.variants.empty())
    return plan_error(topo, topo.variants.front().pos,
                      "variant '" + topo.variants.front().name +
                          "': variants are applied in the nodes' namespaces on the " +
                          backends_with(&BackendTraits::variants) + " backend, not on '" + plan.backend + "'",
                      "leave out --backend " + plan.backend + " for this topology");
  if (traits.remote_hosts)
    for (const auto& h : topo.hosts)
      plan.hosts.push_back(PlanHost{h.name, h.ssh, h.nic, h.agent, h.ssh_options, h.host_key, h.known_hosts});
  plan.image = topo.image;
  plan.ns_prefix = std::string(kLabPrefix) + topo.lab_name + "-" + opts.tag + "-";
  plan.topology_file = topo.file;
  plan.overlay_subnet = topo.overlay_subnet;
  plan.overlay_mtu = topo.overlay_mtu;
  plan.overlay_port = topo.overlay_port;
  plan.products = opts.products.empty() ? topo.bench.products : opts.products;
  plan.samples = opts.samples.value_or(topo.bench.samples);
  plan.duration_s = opts.duration_s.value_or(topo.bench.duration_s);
  plan.warmup_s = topo.bench.warmup_s;
  plan.precision = topo.bench.precision;
  plan.max_time_s = topo.bench.max_time_s;
  plan.adaptive_by_default = topo.bench.adaptive_by_default;
  plan.threads = topo.bench.threads;
  plan.interleave = topo.bench.interleave;
  plan.rps = topo.bench.rps;
  plan.lab_points = topo.bench.lab_points;
  plan.variants = topo.variants;
  if (plan.samples < 1) return make_error("--samples must be at least 1", "use --samples 10 (the default)");
  if (plan.duration_s < 1) return make_error("--duration must be at least 1s", "use --duration 10s");

  plan_nodes_and_links(topo, &plan);
  if (auto s = plan_routing(topo, &plan); !s) return s.error();
  plan_pinning(opts.cpu_count, opts.no_pin, &plan);
  return plan;
}

Plan plan_for_host(const Plan& plan, const std::string& host) {
  Plan part = plan;
  part.nodes.clear();
  part.bridges.clear();
  part.veths.clear();
  part.routes.clear();
  part.nics.clear();
  std::map<std::string, const PlanNode*> by_ns;
  for (const auto& n : plan.nodes) by_ns[n.ns] = &n;
  auto here = [&](const std::string& ns) {
    auto it = by_ns.find(ns);
    return it != by_ns.end() && it->second->host == host;
  };
  for (const auto& n : plan.nodes)
    if (n.host == host) part.nodes.push_back(n);
  const PlanHost* me = nullptr;
  for (const auto& h : plan.hosts)
    if (h.name == host) me = &h;
  for (const auto& v : plan.veths) {
    if (!v.master_b.empty()) {
      // A bridge link lies on one host (check_hosts_layout): it is here if its node ends are.
      if (here(v.ns_a)) part.veths.push_back(v);
      continue;
    }
    bool a = here(v.ns_a), b = here(v.ns_b);
    if (a && b)
      part.veths.push_back(v);
    else if (a || b)
      part.nics.push_back(PlanNic{v.link, host, me ? me->nic : "", by_ns[a ? v.ns_a : v.ns_b]->name,
                                  a ? v.ns_a : v.ns_b, a ? v.if_a : v.if_b, a ? *v.addr_a : *v.addr_b, v.mtu});
  }
  for (const auto& b : plan.bridges)
    if (std::any_of(part.veths.begin(), part.veths.end(), [&](const PlanVeth& v) { return v.ns_b == b.ns; }))
      part.bridges.push_back(b);
  for (const auto& r : plan.routes)
    if (const PlanNode* n = plan.node(r.node); n && n->host == host) part.routes.push_back(r);
  return part;
}

namespace {
std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus) out += " " + std::to_string(c);
  return out;
}
}  // namespace

namespace {

// Namespaces (bridges, then nodes with their addresses) and the hosts they run on.
void describe_nodes(const Plan& plan, std::ostream& o) {
  o << "namespaces:\n";
  for (const auto& b : plan.bridges) o << "  " << b.ns << "  (bridge " << b.name << " for link " << b.link << ")\n";
  for (const auto& n : plan.nodes) {
    o << "  " << n.ns << "  node " << n.name;
    if (n.vpn)
      o << ", overlay " << n.overlay.str();
    else
      o << ", behind gateway " << n.gateway << " (runs no VPN)";
    if (!n.cpus.empty()) o << ", cpus" << cpu_list(n.cpus);
    if (!n.load_cpus.empty()) o << ", load_cpus" << cpu_list(n.load_cpus);
    o << "\n";
    for (const auto& u : n.underlay) o << "      " << u.ifname << "  " << u.addr.str() << "  (link " << u.link << ")\n";
    for (const auto& s : n.sites) o << "      serves site " << s.str() << "\n";
  }
  for (const auto& h : plan.hosts) {
    o << "host " << h.name << " (ssh " << h.ssh << (h.nic.empty() ? "" : ", nic " + h.nic) << "): nodes";
    for (const auto& n : plan.nodes)
      if (n.host == h.name) o << " " << n.name;
    o << "\n";
    for (const auto& nic : plan_for_host(plan, h.name).nics)
      o << "  " << h.nic << " moves into node " << nic.node << " as " << nic.ifname << " " << nic.addr.str()
        << " (link " << nic.link << "), back at teardown\n";
  }
}

// The links: veth pairs, or between two hosts the wire itself, with their shaping.
void describe_veths(const Plan& plan, std::ostream& o) {
  o << "veth pairs:\n";
  auto host_of_ns = [&](const std::string& ns) {
    for (const auto& n : plan.nodes)
      if (n.ns == ns) return n.host;
    return std::string();
  };
  auto nic_of = [&](const std::string& host) {
    for (const auto& h : plan.hosts)
      if (h.name == host) return h.nic;
    return std::string();
  };
  for (const auto& v : plan.veths) {
    if (const std::string ha = host_of_ns(v.ns_a), hb = host_of_ns(v.ns_b);
        v.master_b.empty() && !ha.empty() && !hb.empty() && ha != hb) {
      o << "  " << v.link << ": the wire between " << ha << " and " << hb << " (nic " << nic_of(ha) << " of " << ha
        << ", " << nic_of(hb) << " of " << hb << "), MTU " << v.mtu << "\n";
      continue;
    }
    o << "  " << v.link << ": " << v.ns_a << "/" << v.if_a << " <-> " << v.ns_b << "/" << v.if_b;
    if (!v.master_b.empty()) o << " (port of " << v.master_b << ")";
    o << ", MTU " << v.mtu;
    if (v.rate_bps > 0) {
      TbfParams tbf = tbf_params(v.rate_bps, v.mtu);
      o << ", rate " << v.rate_bps / 1e6 << " Mbit/s (TBF: burst " << tbf.burst_bytes << " B, queue limit "
        << tbf.limit_bytes << " B)";
    }
    if (v.delay_ms > 0 || v.loss_pct > 0) {
      o << (v.profile.empty() ? std::string(",") : ", profile " + v.profile + ":");
      if (v.delay_ms > 0) o << " delay " << v.delay_ms << " ms";
      if (v.jitter_ms > 0) o << " +- " << v.jitter_ms << " ms" << (v.reorder ? " (may reorder)" : " (in order)");
      if (v.loss_pct > 0) o << (v.delay_ms > 0 ? "," : "") << " loss " << v.loss_pct << " %";
      o << " each way";
    }
    o << "\n";
  }
}

// Hops, routes, pinning, products, lab points and variants.
void describe_rest(const Plan& plan, std::ostream& o) {
  for (const auto& h : plan.hops)
    o << (&h == &plan.hops.front() ? "hops (each its own tunnel; a relay runs one instance per hop):\n" : "") << "  "
      << h.chain << " hop " << h.index << ": " << h.a << " " << h.addr_a.str() << " <-> " << h.b << " "
      << h.addr_b.str()
      << (h.relays.empty() ? " over link " + h.link
                           : ", one overlay relayed by the product through " + h.relays.front() + " " +
                                 plan.node(h.relays.front())->overlay.str())
      << ", port " << h.port << "\n";
  if (!plan.routes.empty()) {
    o << "routes:\n";
    for (const auto& r : plan.routes)
      o << "  " << r.node << ": " << (r.dest.length == 0 ? std::string("default") : r.dest.str()) << " via "
        << r.via.str()
        << (r.when == PlanRoute::When::tunnel     ? "  (products: through the tunnel)"
            : r.when == PlanRoute::When::baseline ? "  (baseline)"
                                                  : "")
        << "\n";
  }
  o << "pinning:" << (plan.pinned ? "" : " off") << "\n";
  for (const auto& note : plan.pin_notes) o << "  " << note << "\n";
  for (const auto& w : plan.pin_warnings) o << "  ! " << w << "\n";
  o << "products (" << (plan.interleave ? "interleaved: one sample round of each in turn" : "one after the other")
    << ", one at a time, topology rebuilt for each):";
  for (const auto& p : plan.products) o << " " << p;
  if (plan.threads) o << "\n  data-plane threads: " << *plan.threads << " for every product";
  if (!plan.lab_points.empty()) {
    o << "\nlab points (the [bench] sweep: every product brought up at each, on the lab rebuilt for it):";
    for (const auto& p : plan.lab_points)
      o << " " << point_text(p.values)
        << (p.overlay_mtu > 0 ? " (overlay MTU " + std::to_string(p.overlay_mtu) + ")" : "");
  }
  for (const auto& v : plan.variants) {
    o << "\nvariant " << v.name << " (every VPN node, after the lab is built, before the product):";
    for (const auto& f : variant_facets()) o << f.describe(v);
  }
}

// One bulk test: its shape, and each iperf3 process with its CPUs.
void describe_bulk_test(const Plan& plan, const PlanTest& t, std::ostream& o) {
  const TestSpec& s = t.spec;
  o << "  " << s.name << ": " << traffic_pattern(s) << ", " << traffic_direction(s) << ", " << s.client << " -> ";
  for (size_t k = 0; k < s.servers.size(); ++k) o << (k ? "," : "") << s.servers[k];
  o << ", " << (s.udp ? "UDP" : "TCP") << ", " << s.streams << " stream(s)"
    << (s.mss ? ", MSS " + std::to_string(*s.mss) : "");
  if (s.bitrate_bps > 0) o << ", " << s.bitrate_bps / 1e6 << " Mbit/s offered";
  if (s.udp)
    o << ", " << (udp_length(s, plan.overlay_mtu) > 0 ? std::to_string(udp_length(s, plan.overlay_mtu)) : "MTU - 28")
      << "-byte datagrams";
  if (s.zero_loss)
    o << ", zero-loss search: up to " << s.steps << " trials of "
      << std::max(1, static_cast<int>(plan.duration_s / s.steps)) << " s, loss <= " << s.max_loss_pct << " %";
  o << "\n";
  for (const auto& p : expand_traffic(plan, t, test_kind(s.kind).first_port))
    o << "    iperf3 " << p.client << (p.client_cpu >= 0 ? "@cpu" + std::to_string(p.client_cpu) : "") << " -> "
      << p.server << (p.server_cpu >= 0 ? "@cpu" + std::to_string(p.server_cpu) : "") << ":" << p.port << " -P "
      << p.parallel << "\n";
}

// Every test; a sweep's first point names the sweep, its points and what each costs.
void describe_tests(const Plan& plan, std::ostream& o) {
  o << "\ntests:\n";
  for (size_t i = 0; i < plan.tests.size(); ++i) {
    const TestSpec& s = plan.tests[i].spec;
    if (!s.sweep_of.empty() && (i == 0 || plan.tests[i - 1].spec.sweep_of != s.sweep_of)) {
      size_t points = 0;
      for (const auto& other : plan.tests) points += other.spec.sweep_of == s.sweep_of;
      const double per_point = plan.samples * (plan.duration_s + (plan.interleave ? plan.warmup_s : 0)) *
                               static_cast<double>(plan.products.size());
      o << "  sweep '" << s.sweep_of << "': " << points << " points, each a test of its own (~"
        << static_cast<long long>(per_point) << " s of measuring each):\n";
    }
    const PlanTest& t = plan.tests[i];
    if (const TestKindTraits& kind = test_kind(s.kind); kind.plan_line) {
      o << kind.plan_line(s, expand_traffic(plan, t, kind.first_port).front());
      continue;
    }
    describe_bulk_test(plan, t, o);
  }
}

}  // namespace

std::string describe_plan(const Plan& plan) {
  std::ostringstream o;
  o << "lab " << plan.lab << " (run " << plan.run_id << ")\n";
  o << "overlay " << plan.overlay_subnet.str() << ", MTU "
    << (plan.overlay_mtu > 0 ? std::to_string(plan.overlay_mtu) : "auto") << ", port " << plan.overlay_port << "\n";
  describe_nodes(plan, o);
  describe_veths(plan, o);
  describe_rest(plan, o);
  describe_tests(plan, o);
  const RunTimeEstimate e = estimate_run_time(plan);
  auto whole = [](double s) { return std::to_string(std::llround(s)); };
  o << "samples " << plan.samples << " x " << plan.duration_s << " s after " << plan.warmup_s << " s warm-up; "
    << "estimated wall time " << whole(e.total()) << " s (samples " << whole(e.measuring_s) << ", warm-ups "
    << whole(e.warmup_s) << ", around the samples " << whole(e.overhead_s) << ", labs and bring-ups " << whole(e.labs_s)
    << ", once " << whole(e.once_s) << ")\n";
  return o.str();
}

}  // namespace vpnlab
