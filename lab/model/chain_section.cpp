// [[chain]] tables: multi-hop paths. A chain lists VPN nodes in path order; each pair of
// neighbours is one hop, a tunnel of its own over a link they share, and every node inside
// the chain is a relay that terminates one hop's tunnel and forwards into the next. The
// chains' nodes are the topology's VPN nodes; site clients (gateway = an end) send and
// receive the tests' traffic.
#include <algorithm>
#include <set>

#include "lab/model/topology_parse.h"

namespace vpnlab {

namespace {

bool share_a_link(const Topology& topo, const std::string& a, const std::string& b) {
  return std::any_of(topo.links.begin(), topo.links.end(), [&](const LinkSpec& l) {
    return std::count(l.nodes.begin(), l.nodes.end(), a) && std::count(l.nodes.begin(), l.nodes.end(), b);
  });
}

}  // namespace

Status parse_chains(const TomlReader& r, const toml::table& root, Topology* topo) {
  const toml::node* chains = root.get("chain");
  if (!chains) return ok_status();
  if (!topo->vpn_nodes.empty())
    return r.at(topo->vpn_nodes_pos, "overlay: nodes and [[chain]] both say which nodes run the VPN",
                "leave out [overlay] nodes: every chain's nodes run it");
  std::set<std::string> names, seen;
  size_t hops = 0;
  if (auto s = for_each_table(
          r, root, "chain",
          [&](const toml::table& t) -> Status {
            ChainSpec c;
            c.pos = pos_of(t);
            if (auto s = r.only_keys(t, "chain", {"name", "nodes", "relay"}); !s) return s;
            c.name = "chain-" + std::to_string(topo->chains.size() + 1);
            if (auto s = get_string(r, t, "name", "chain", &c.name, false, c.pos); !s) return s;
            const std::string what = "chain '" + c.name + "'";
            if (!names.insert(c.name).second)
              return r.at(c.pos, what + " is defined twice", "give every chain a unique name");
            if (!t.get("nodes"))
              return r.at(c.pos, what + ": no nodes",
                          "write nodes = [\"r1\", \"r2\", \"r3\"]: the VPN nodes along the path, in order");
            if (auto s = get_string_list(r, t, "nodes", what, &c.nodes, &c.nodes_pos); !s) return s;
            if (c.nodes.size() < 2)
              return r.at(c.nodes_pos, what + ": a chain needs at least two nodes (one hop)",
                          "list the VPN nodes along the path, e.g. [\"r1\", \"r2\", \"r3\"]");
            std::string relay = "hops";
            if (auto s = get_string(r, t, "relay", what, &relay, false, c.pos); !s) return s;
            if (relay != "hops" && relay != "native")
              return r.at(*t.get("relay"), what + ": relay = \"" + relay + "\" is not understood",
                          "write relay = \"hops\" (the default: a tunnel per hop) or \"native\" (the product relays "
                          "through the middle node)");
            c.native_relay = relay == "native";
            if (c.native_relay && c.nodes.size() != 3)
              return r.at(c.nodes_pos,
                          what + ": a native relay chain is two ends and the relay between them, not " +
                              std::to_string(c.nodes.size()) + " nodes",
                          "list three nodes, e.g. [\"a\", \"relay\", \"b\"]: products relay over one node (Nebula's "
                          "relays do not chain)");
            for (size_t i = 0; i < c.nodes.size(); ++i) {
              const std::string& name = c.nodes[i];
              if (!has_node(*topo, name)) return unknown_node(r, c.nodes_pos, what, name, *topo);
              if (!seen.insert(name).second)
                return r.at(c.nodes_pos, what + ": node '" + name + "' is on a chain already",
                            "a node relays on one chain, once");
              if (i > 0 && !share_a_link(*topo, c.nodes[i - 1], name))
                return r.at(c.nodes_pos,
                            what + ": hop '" + c.nodes[i - 1] + "' -> '" + name + "': no link connects them",
                            "add a [[link]] with nodes = [\"" + c.nodes[i - 1] + "\", \"" + name +
                                "\"]: the underlay that hop's tunnel crosses");
            }
            hops += c.native_relay ? 1 : c.nodes.size() - 1;  // a native chain is one overlay
            topo->chains.push_back(std::move(c));
            return ok_status();
          },
          "", "write [[chain]] with nodes = [\"r1\", \"r2\", \"r3\"]");
      !s)
    return s;
  // Each hop gets a /29 of the overlay subnet (lab/model/plan_chain.cpp).
  if (topo->overlay_subnet.length > 29 || (uint64_t{1} << (32 - topo->overlay_subnet.length)) < hops * 8)
    return r.at(topo->chains.front().pos,
                "overlay: subnet " + topo->overlay_subnet.str() + " has no room for a /29 per hop (" +
                    std::to_string(hops) + " hops)",
                "use a larger overlay subnet, e.g. subnet = \"10.77.0.0/24\"");
  for (const auto& c : topo->chains) topo->vpn_nodes.insert(topo->vpn_nodes.end(), c.nodes.begin(), c.nodes.end());
  topo->vpn_nodes_pos = topo->chains.front().nodes_pos;
  return ok_status();
}

}  // namespace vpnlab
