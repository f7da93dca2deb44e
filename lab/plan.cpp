#include "lab/plan.h"

#include <algorithm>
#include <sstream>

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

double Plan::estimated_seconds() const {
  double per_test = warmup_s + samples * duration_s;
  return per_test * static_cast<double>(tests.size() * products.size());
}

namespace {

Error plan_error(const Topology& topo, SourcePos pos, std::string message, std::string hint) {
  Error e = make_error(std::move(message), std::move(hint));
  e.file = topo.file;
  e.line = pos.line;
  e.column = pos.column;
  return e;
}

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

}  // namespace

Result<Plan> make_plan(const Topology& topo, const PlanOptions& opts) {
  if (auto s = check_cpus(topo, opts.cpu_count); !s) return s.error();
  Plan plan;
  plan.run_id = opts.run_id;
  plan.lab = topo.lab_name;
  plan.ns_prefix = std::string(kLabPrefix) + topo.lab_name + "-" + opts.tag + "-";
  plan.topology_file = topo.file;
  plan.overlay_subnet = topo.overlay_subnet;
  plan.overlay_mtu = topo.overlay_mtu;
  plan.overlay_port = topo.overlay_port;
  plan.products = opts.products.empty() ? topo.bench.products : opts.products;
  plan.samples = opts.samples.value_or(topo.bench.samples);
  plan.duration_s = opts.duration_s.value_or(topo.bench.duration_s);
  plan.warmup_s = topo.bench.warmup_s;
  if (plan.samples < 1) return make_error("--samples must be at least 1", "use --samples 10 (the default)");
  if (plan.duration_s < 1) return make_error("--duration must be at least 1s", "use --duration 10s");

  for (size_t i = 0; i < topo.nodes.size(); ++i) {
    const NodeSpec& spec = topo.nodes[i];
    PlanNode n;
    n.name = spec.name;
    n.ns = plan.ns_prefix + "n-" + spec.name;
    n.overlay = HostAddr{*topo.overlay_subnet.host(i + 1), topo.overlay_subnet.length};
    n.cpus = spec.cpus;
    n.load_cpus = spec.load_cpus;
    plan.nodes.push_back(std::move(n));
  }
  auto node_of = [&](const std::string& name) {
    return std::find_if(plan.nodes.begin(), plan.nodes.end(), [&](const PlanNode& n) { return n.name == name; });
  };

  for (const LinkSpec& link : topo.links) {
    int mtu = link.mtu.value_or(1500);
    auto addr = [&](size_t k) { return HostAddr{*link.subnet.host(k + 1), link.subnet.length}; };
    if (link.nodes.size() == 2) {
      auto a = node_of(link.nodes[0]);
      auto b = node_of(link.nodes[1]);
      plan.veths.push_back(PlanVeth{link.name, a->ns, link.name, addr(0), b->ns, link.name, addr(1), "", mtu});
      a->underlay.push_back({link.name, link.name, addr(0)});
      b->underlay.push_back({link.name, link.name, addr(1)});
      continue;
    }
    PlanBridge br{link.name, plan.ns_prefix + "l-" + link.name, "br0", mtu};
    for (size_t k = 0; k < link.nodes.size(); ++k) {
      auto n = node_of(link.nodes[k]);
      plan.veths.push_back(PlanVeth{link.name, n->ns, link.name, addr(k), br.ns, "p" + std::to_string(k), std::nullopt, br.name, mtu});
      n->underlay.push_back({link.name, link.name, addr(k)});
    }
    plan.bridges.push_back(std::move(br));
  }

  for (const TestSpec& t : topo.bench.tests) {
    PlanTest pt{t, ""};
    const PlanNode* c = plan.node(t.client);
    const PlanNode* s = plan.node(t.servers[0]);
    for (const auto& cu : c->underlay)
      for (const auto& su : s->underlay)
        if (pt.underlay_link.empty() && cu.link == su.link) pt.underlay_link = cu.link;
    if (pt.underlay_link.empty())
      return plan_error(topo, t.pos, "test '" + t.name + "': client '" + t.client + "' and server '" + t.servers[0] + "' share no link",
                        "put both nodes on one [[link]] (routed topologies come later)");
    plan.tests.push_back(std::move(pt));
  }
  return plan;
}

std::string describe_plan(const Plan& plan) {
  std::ostringstream o;
  o << "lab " << plan.lab << " (run " << plan.run_id << ")\n";
  o << "overlay " << plan.overlay_subnet.str() << ", MTU " << plan.overlay_mtu << ", port " << plan.overlay_port << "\n";
  o << "namespaces:\n";
  for (const auto& b : plan.bridges) o << "  " << b.ns << "  (bridge " << b.name << " for link " << b.link << ")\n";
  for (const auto& n : plan.nodes) {
    o << "  " << n.ns << "  node " << n.name << ", overlay " << n.overlay.str();
    if (!n.cpus.empty()) { o << ", cpus"; for (int c : n.cpus) o << " " << c; }
    if (!n.load_cpus.empty()) { o << ", load_cpus"; for (int c : n.load_cpus) o << " " << c; }
    o << "\n";
    for (const auto& u : n.underlay) o << "      " << u.ifname << "  " << u.addr.str() << "  (link " << u.link << ")\n";
  }
  o << "veth pairs:\n";
  for (const auto& v : plan.veths) {
    o << "  " << v.link << ": " << v.ns_a << "/" << v.if_a << " <-> " << v.ns_b << "/" << v.if_b;
    if (!v.master_b.empty()) o << " (port of " << v.master_b << ")";
    o << ", MTU " << v.mtu << "\n";
  }
  o << "products (one at a time, topology rebuilt for each):";
  for (const auto& p : plan.products) o << " " << p;
  o << "\ntests:\n";
  for (const auto& t : plan.tests) {
    o << "  " << t.spec.name << ": " << t.spec.client << " -> " << t.spec.servers[0] << ", " << t.spec.streams << " stream(s)"
      << (t.spec.reverse ? ", reverse" : "") << (t.spec.mss ? ", MSS " + std::to_string(*t.spec.mss) : "") << "\n";
  }
  o << "samples " << plan.samples << " x " << plan.duration_s << " s after " << plan.warmup_s << " s warm-up; "
    << "estimated measuring time " << static_cast<int>(plan.estimated_seconds()) << " s\n";
  return o.str();
}

}  // namespace vpnlab
