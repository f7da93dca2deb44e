// Multi-hop plans: each hop of a [[chain]] is a tunnel of its own between neighbours, and
// the routes send a site's traffic hop by hop: every chain node reaches the sites beyond a
// neighbour through that neighbour's address on the hop they share (its tunnel address
// for a product, its underlay address for the baseline). A relay so forwards what one
// hop's tunnel delivers into the next; nothing reaches past a neighbour directly.
#include <algorithm>

#include "lab/model/plan_parts.h"

namespace vpnlab {

std::string hop_interface(const std::string& base, int index) {
  if (index <= 1) return base;
  size_t digits = base.find_last_not_of("0123456789") + 1;
  if (digits == base.size()) return base + std::to_string(index);
  return base.substr(0, digits) + std::to_string(std::stoi(base.substr(digits)) + index - 1);
}

namespace {

// The sites of chain nodes [from, to).
std::vector<Ipv4Prefix> sites_of(const ChainSpec& chain, const Plan& plan, size_t from, size_t to) {
  std::vector<Ipv4Prefix> out;
  for (size_t j = from; j < to; ++j)
    for (const auto& site : plan.node(chain.nodes[j])->sites) out.push_back(site);
  return out;
}

// The hops of one chain, each in its own /29 (`*next` counts /29s over all chains); a
// native relay chain is one hop, its relay in the middle of the /29 (.1 a, .2 relay, .3 b).
void add_hops(const ChainSpec& chain, Plan* plan, uint32_t* next) {
  for (const auto& name : chain.nodes) node_ref(plan, name).forwards = true;
  const size_t n = chain.nodes.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    PlanHop h;
    h.chain = chain.name;
    h.index = static_cast<int>(i + 1);
    h.a = chain.nodes[i];
    h.b = chain.native_relay ? chain.nodes.back() : chain.nodes[i + 1];
    if (chain.native_relay) h.relays = {chain.nodes[1]};
    h.link = shared_link(*plan->node(h.a), *plan->node(chain.nodes[i + 1]));
    h.subnet = Ipv4Prefix{Ipv4Addr{plan->overlay_subnet.network.value + 8 * (*next)++}, 29};
    h.addr_a = HostAddr{*h.subnet.host(1), 29};
    h.addr_b = HostAddr{*h.subnet.host(chain.native_relay ? 3 : 2), 29};
    h.port = plan->overlay_port + h.index - 1;
    h.sites_a = sites_of(chain, *plan, 0, i + 1);
    h.sites_b = sites_of(chain, *plan, chain.native_relay ? n - 1 : i + 1, n);
    plan->hops.push_back(std::move(h));
    if (chain.native_relay) break;
  }
}

// A native relay chain's ends may be tested between themselves: the baseline reaches the
// far end's link through the relay, in clear. Products get no such route, so the only way
// from end to end is the product's own relay.
void add_end_to_end_routes(const ChainSpec& chain, Plan* plan) {
  const std::string& relay = chain.nodes[1];
  const std::string* ends[2] = {&chain.nodes.front(), &chain.nodes.back()};
  for (int e = 0; e < 2; ++e) {
    const PlanNode& self = *plan->node(*ends[e]);
    const PlanNode& other = *plan->node(*ends[1 - e]);
    const std::string near = shared_link(self, *plan->node(relay)), far = shared_link(other, *plan->node(relay));
    const Ipv4Addr via = plan->underlay_address(relay, near);
    for (const auto& u : other.underlay)
      if (u.link == far) plan->routes.push_back(PlanRoute{self.name, u.addr.network(), via, PlanRoute::When::baseline});
  }
}

// Every chain node's routes to the sites of the others. The baseline goes through the
// neighbour toward them, over the link they share. So do products on a chain of hops (to
// the neighbour's address on their hop); on a native relay chain an end sends to the other
// end's overlay address and the product relays, while the relay routes nothing in clear.
void add_chain_routes(const ChainSpec& chain, Plan* plan, size_t first_hop) {
  const size_t n = chain.nodes.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const bool forward = j > i;
      const std::string& neighbour = chain.nodes[forward ? i + 1 : i - 1];
      const std::string link = shared_link(*plan->node(chain.nodes[i]), *plan->node(neighbour));
      const PlanHop& hop = plan->hops[first_hop + (chain.native_relay ? 0 : forward ? i : i - 1)];
      const bool tunnelled = !chain.native_relay || i != 1;
      const Ipv4Addr tunnel_via = (forward ? hop.addr_b : hop.addr_a).addr;
      for (const auto& site : plan->node(chain.nodes[j])->sites) {
        if (tunnelled) plan->routes.push_back(PlanRoute{chain.nodes[i], site, tunnel_via, PlanRoute::When::tunnel});
        plan->routes.push_back(
            PlanRoute{chain.nodes[i], site, plan->underlay_address(neighbour, link), PlanRoute::When::baseline});
      }
    }
  if (chain.native_relay) add_end_to_end_routes(chain, plan);
}

const ChainSpec* chain_named(const Topology& topo, const std::string& name) {
  for (const auto& c : topo.chains)
    if (c.name == name) return &c;
  return nullptr;
}

// The two ends of one overlay may be tested between themselves, as any two VPN nodes of a
// p2p overlay: a chain of one hop, or a native relay chain (its relay carries their packets:
// add_end_to_end_routes).
bool ends_of_one_overlay(const Topology& topo, const std::string& a, const std::string& b) {
  for (const auto& c : topo.chains)
    if ((c.native_relay || c.nodes.size() == 2) &&
        ((c.nodes.front() == a && c.nodes.back() == b) || (c.nodes.front() == b && c.nodes.back() == a)))
      return true;
  return false;
}

// A chain test runs between site clients behind the two ends of one chain, or between the
// two ends of a one-hop or native relay chain.
Status check_chain_test(const Topology& topo, const Plan& plan, const TestSpec& t, PlanTest* pt) {
  std::vector<std::string> ends = t.servers;
  ends.insert(ends.begin(), t.client);
  const bool on_ends = std::all_of(t.servers.begin(), t.servers.end(),
                                   [&](const std::string& s) { return ends_of_one_overlay(topo, t.client, s); });
  if (on_ends) {
    // Each server's link is the client's toward the other end or the relay: where the
    // client's packets leave.
    const PlanHop& hop = *plan.hops_between(t.client, t.servers.front()).front();
    pt->underlay_links.assign(
        t.servers.size(),
        hop.relays.empty() ? hop.link : shared_link(*plan.node(t.client), *plan.node(hop.relays.front())));
    return ok_status();
  }
  for (const auto& name : ends)
    if (plan.node(name)->vpn)
      return plan_error(topo, t.pos,
                        "test '" + t.name + "': '" + name +
                            "' is on a chain itself; a chain's tests run between the site clients behind its ends",
                        "add a node with gateway = \"" + name +
                            "\" and a link to it, and test from or to that node (only the two ends of a one-hop or "
                            "native relay chain may be tested between themselves)");
  const std::string& from = plan.node(t.client)->gateway;
  for (const auto& server : t.servers) {
    const std::string& to = plan.node(server)->gateway;
    auto hops = plan.hops_between(from, to);
    const ChainSpec* chain = hops.empty() ? nullptr : chain_named(topo, hops.front()->chain);
    if (!chain || !((chain->nodes.front() == from && chain->nodes.back() == to) ||
                    (chain->nodes.front() == to && chain->nodes.back() == from)))
      return plan_error(
          topo, t.pos,
          "test '" + t.name + "': '" + t.client + "' (behind " + from + ") and '" + server + "' (behind " + to +
              ") are not behind the two ends of one chain",
          "put the client behind a chain's first node and the server behind its last (or the other way round)");
    pt->underlay_links.push_back(hops.front()->link);
  }
  return ok_status();
}

}  // namespace

Status plan_chains(const Topology& topo, Plan* plan) {
  if (!backend_traits(plan->backend).chains)
    return plan_error(
        topo, topo.chains.front().pos,
        "[[chain]] runs on the " + backends_with(&BackendTraits::chains) + " backend only, not '" + plan->backend + "'",
        "run it with --backend " + backends_with(&BackendTraits::chains) +
            " (relays with an instance per hop were not tried in guests or on hosts)");
  uint32_t next = 0;
  for (const ChainSpec& chain : topo.chains) {
    const size_t first_hop = plan->hops.size();
    add_hops(chain, plan, &next);
    add_chain_routes(chain, plan, first_hop);
  }
  // A chain node's own overlay address, for listings: the one on its first hop.
  for (auto it = plan->hops.rbegin(); it != plan->hops.rend(); ++it) {
    node_ref(plan, it->b).overlay = it->addr_b;
    node_ref(plan, it->a).overlay = it->addr_a;
    for (const auto& r : it->relays) node_ref(plan, r).overlay = HostAddr{*it->subnet.host(2), 29};
  }
  for (const TestSpec& t : topo.bench.tests) {
    PlanTest pt{t, {}};
    if (auto s = check_chain_test(topo, *plan, t, &pt); !s) return s;
    plan->tests.push_back(std::move(pt));
  }
  return ok_status();
}

std::vector<const PlanHop*> Plan::hops_between(const std::string& from, const std::string& to) const {
  std::string chain;
  for (const auto& h : hops)
    if (h.a == from || h.b == from) chain = h.chain;
  std::vector<const PlanHop*> path;  // from's whole chain
  for (const auto& h : hops)
    if (!chain.empty() && h.chain == chain) path.push_back(&h);
  // Keep the stretch between from and to, in from's direction.
  auto at = [&](const std::string& node) {
    for (size_t i = 0; i < path.size(); ++i)
      if (path[i]->a == node) return static_cast<int>(i);
    return !path.empty() && path.back()->b == node ? static_cast<int>(path.size()) : -1;
  };
  const int i = at(from), j = at(to);
  if (i < 0 || j < 0 || i == j) return {};
  std::vector<const PlanHop*> out(path.begin() + std::min(i, j), path.begin() + std::max(i, j));
  if (i > j) std::reverse(out.begin(), out.end());
  return out;
}

int Plan::hops_crossed(const std::string& from, const std::string& to) const {
  int n = 0;
  for (const PlanHop* h : hops_between(from, to)) n += 1 + static_cast<int>(h->relays.size());
  return n;
}

std::vector<std::string> PlanHop::nodes() const {
  std::vector<std::string> out = relays;
  out.push_back(a);
  out.push_back(b);
  return out;
}

bool PlanHop::has(const std::string& node) const {
  return a == node || b == node || std::count(relays.begin(), relays.end(), node) > 0;
}

Plan Plan::hop_plan(size_t i) const {
  const PlanHop& hop = hops.at(i);
  Plan out = *this;
  // The links between the hop's nodes carry its packets (a native relay: both of the relay's).
  std::vector<std::string> carriers = {hop.link};
  for (const auto& r : hop.relays) carriers.push_back(shared_link(*node(r), *node(hop.b)));
  auto end = [&](const std::string& name, const HostAddr& addr, const std::vector<Ipv4Prefix>& sites) {
    PlanNode n = *node(name);
    n.overlay = addr;
    n.sites = sites;
    n.relay = std::count(hop.relays.begin(), hop.relays.end(), name) > 0;
    for (auto& u : n.underlay) u.carrier = std::count(carriers.begin(), carriers.end(), u.link) > 0;
    out.nodes.push_back(std::move(n));
  };
  out.nodes.clear();
  // A relay comes first: products make their first node the one all others reach (Nebula's
  // lighthouse), and only the relay is reached by both ends.
  for (const auto& r : hop.relays) end(r, HostAddr{*hop.subnet.host(2), 29}, {});
  end(hop.a, hop.addr_a, hop.sites_a);
  end(hop.b, hop.addr_b, hop.sites_b);
  out.overlay_subnet = hop.subnet;
  out.overlay_port = hop.port;
  out.routes.clear();
  out.tests.clear();
  out.hops.clear();
  return out;
}

}  // namespace vpnlab
