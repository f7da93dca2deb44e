#include "lab/model/topology.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/model/impairment_profiles.h"
#include "lab/model/toml_reader.h"
#include "lab/model/topology_parse.h"

namespace vpnlab {

namespace {

using Reader = TomlReader;

const size_t kMaxLinkName = 15;  // becomes an interface name inside the nodes (IFNAMSIZ - 1)
const size_t kMaxNodeName = 32;

Status parse_lab(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* lab = root.get("lab");
  if (!lab || !lab->is_table())
    return r.at(SourcePos{1, 1}, "missing [lab] table", "start the file with [lab] and name = \"...\"");
  const toml::table& t = *lab->as_table();
  if (auto s = r.only_keys(t, "lab", {"name", "backend", "image"}); !s) return s;
  if (auto s = get_string(r, t, "name", "lab", &topo->lab_name, true, pos_of(t)); !s) return s;
  if (auto s = check_name(r, pos_of(*t.get("name")), "lab", topo->lab_name, kMaxLabName); !s) return s;
  if (auto s = get_string(r, t, "backend", "lab", &topo->backend, false, pos_of(t)); !s) return s;
  if (!is_backend(topo->backend))
    return r.at(*t.get("backend"), "lab: unknown backend '" + topo->backend + "'",
                "use backend = " + backend_list(/*with_about=*/true));
  if (auto s = get_string(r, t, "image", "lab", &topo->image, false, pos_of(t)); !s) return s;
  if (!topo->image.empty() && !backend_traits(topo->backend).guests)
    return r.at(*t.get("image"),
                "lab: image '" + topo->image + "' is for guests, but the backend is '" + topo->backend + "'",
                "add backend = \"" + backends_with(&BackendTraits::guests) + "\", or remove image");
  return ok_status();
}

Status parse_overlay(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* ov = root.get("overlay");
  if (!ov || !ov->is_table())
    return r.at(SourcePos{1, 1}, "missing [overlay] table",
                "add [overlay] with subnet = \"10.77.0.0/24\", mtu = 1400, port = 51820");
  const toml::table& t = *ov->as_table();
  if (auto s = r.only_keys(t, "overlay", {"subnet", "mtu", "port", "nodes"}); !s) return s;
  std::string subnet;
  if (auto s = get_string(r, t, "subnet", "overlay", &subnet, true, pos_of(t)); !s) return s;
  std::string why;
  auto prefix = parse_ipv4_prefix(subnet, &why);
  if (!prefix) return r.at(*t.get("subnet"), "overlay: subnet " + why, "write subnet = \"10.77.0.0/24\"");
  topo->overlay_subnet = *prefix;
  if (const toml::node* mtu = t.get("mtu"); mtu && mtu->is_string()) {
    if (mtu->as_string()->get() != "auto")
      return r.at(*mtu, "overlay: mtu = \"" + mtu->as_string()->get() + "\" is not understood",
                  "give an integer, e.g. mtu = 1400, or \"auto\"");
    topo->overlay_mtu = 0;  // auto: the largest MTU every selected product carries
  } else if (auto s = get_int(r, t, "mtu", "overlay", &topo->overlay_mtu, 576, 9000); !s) {
    return s;
  }
  if (auto s = get_int(r, t, "port", "overlay", &topo->overlay_port, 1, 65535); !s) return s;
  // Names are checked once the nodes are known (check_routing).
  if (t.get("nodes")) return get_string_list(r, t, "nodes", "overlay", &topo->vpn_nodes, &topo->vpn_nodes_pos);
  return ok_status();
}

Status parse_nodes(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* nodes = root.get("node");
  if (!nodes)
    return r.at(SourcePos{1, 1}, "no [[node]] defined", "add at least two [[node]] tables with name = \"...\"");
  std::set<std::string> seen;
  if (auto s = for_each_table(
          r, root, "node",
          [&](const toml::table& t) -> Status {
            NodeSpec n;
            n.pos = pos_of(t);
            if (auto s = r.only_keys(t, "node", {"name", "cpus", "load_cpus", "gateway", "host"}); !s) return s;
            if (auto s = get_string(r, t, "name", "node", &n.name, true, n.pos); !s) return s;
            std::string what = "node '" + n.name + "'";
            if (auto s = check_name(r, pos_of(*t.get("name")), "node", n.name, kMaxNodeName); !s) return s;
            if (!seen.insert(n.name).second)
              return r.at(*t.get("name"), what + " is defined twice", "give every node a unique name");
            if (auto s = get_cpu_list(r, t, "cpus", what, &n.cpus); !s) return s;
            if (auto s = get_cpu_list(r, t, "load_cpus", what, &n.load_cpus); !s) return s;
            if (const toml::node* h = t.get("host")) {
              if (auto s = get_string(r, t, "host", what, &n.host, false, n.pos); !s) return s;
              n.host_pos = pos_of(*h);
              bool known = std::any_of(topo->hosts.begin(), topo->hosts.end(),
                                       [&](const HostSpec& hs) { return hs.name == n.host; });
              if (!known) {
                std::vector<std::string> names;
                for (const auto& hs : topo->hosts) names.push_back(hs.name);
                std::string guess = closest_match(n.host, names);
                return r.at(*h, what + ": host '" + n.host + "' is not defined",
                            !guess.empty() ? "did you mean '" + guess + "'?"
                            : names.empty()
                                ? "add a [[host]] with name = \"" + n.host + "\", ssh = \"root@...\" and nic = \"...\""
                                : "use one of: " + Reader::join(names));
              }
            }
            if (const toml::node* gw = t.get("gateway")) {
              std::string name;
              if (auto s = get_string(r, t, "gateway", what, &name, false, n.pos); !s) return s;
              n.gateway = name;
              n.gateway_pos = pos_of(*gw);
            }
            topo->nodes.push_back(std::move(n));
            return ok_status();
          });
      !s)
    return s;
  if (topo->nodes.size() < 2)
    return r.at(pos_of(*nodes), "a topology needs at least two nodes", "add another [[node]]");
  return ok_status();
}

}  // namespace

bool runs_vpn(const Topology& topo, const std::string& node) {
  return topo.vpn_nodes.empty() ||
         std::find(topo.vpn_nodes.begin(), topo.vpn_nodes.end(), node) != topo.vpn_nodes.end();
}

bool has_node(const Topology& topo, const std::string& name) {
  return std::any_of(topo.nodes.begin(), topo.nodes.end(), [&](const NodeSpec& n) { return n.name == name; });
}

std::vector<std::string> node_names(const Topology& topo) {
  std::vector<std::string> out;
  for (const auto& n : topo.nodes) out.push_back(n.name);
  return out;
}

Status unknown_node(const Reader& r, SourcePos pos, const std::string& what, const std::string& name,
                    const Topology& topo) {
  std::string guess = closest_match(name, node_names(topo));
  return r.at(pos, what + ": node '" + name + "' is not defined",
              guess.empty()
                  ? "define it with [[node]] name = \"" + name + "\", or use one of: " + Reader::join(node_names(topo))
                  : "did you mean '" + guess + "'?");
}

namespace {

// rate: a token bucket on every end of the link; delay/jitter/loss: netem, which not every
// kernel has (the run finds out by creating the qdisc and stops with its name if it fails).
// profile = "NAME": delay, jitter and loss from the profile table, never beside them.
Status parse_profile(const Reader& r, const toml::table& t, const std::string& what, LinkSpec* l) {
  const toml::node* p = t.get("profile");
  if (!p) return ok_status();
  for (const char* key : {"delay", "jitter", "loss"})
    if (t.get(key))
      return r.at(*t.get(key), what + ": '" + key + "' beside profile",
                  "a profile sets delay, jitter and loss; write them without it instead");
  const ImpairmentProfile* found = p->is_string() ? find_impairment_profile(p->as_string()->get()) : nullptr;
  if (!found)
    return r.at(*p, what + ": profile is not one of " + impairment_profile_names(),
                "write profile = \"wan-20ms\", or delay/jitter/loss");
  l->profile = found->name;
  l->delay_ms = found->delay_ms;
  l->jitter_ms = found->jitter_ms;
  l->loss_pct = found->loss_pct;
  return ok_status();
}

Status parse_shaping(const Reader& r, const toml::table& t, const std::string& what, LinkSpec* l) {
  for (const char* key : {"profile", "rate", "delay", "jitter", "loss", "reorder"})
    if (const toml::node* n = t.get(key); n && l->shaping_pos.line == 0) l->shaping_pos = pos_of(*n);
  if (const toml::node* rate = t.get("rate")) {
    std::optional<double> bps = rate->is_string() ? parse_rate(rate->as_string()->get()) : std::nullopt;
    if (!bps || *bps < 8000)
      return r.at(*rate, what + ": 'rate' is not a rate of at least 8kbit",
                  "write rate = \"1gbit\" (bits/s: kbit, mbit, gbit)");
    l->rate_bps = *bps;
  }
  for (auto [key, out] : {std::pair{"delay", &l->delay_ms}, std::pair{"jitter", &l->jitter_ms}}) {
    if (!t.get(key)) continue;
    double seconds = 0;
    if (auto s = get_duration(r, t, key, what, &seconds, 0); !s) return s;
    *out = seconds * 1000;
  }
  if (l->jitter_ms > 0 && l->delay_ms == 0)
    return r.at(*t.get("jitter"), what + ": 'jitter' without 'delay'", "add delay = \"10ms\": jitter varies the delay");
  if (const toml::node* loss = t.get("loss")) {
    std::string text = loss->is_string() ? loss->as_string()->get() : "";
    double pct = -1;
    if (!text.empty() && text.back() == '%') {
      try {
        pct = std::stod(text.substr(0, text.size() - 1));
      } catch (...) {
        pct = -1;
      }
    }
    if (pct < 0 || pct > 100) return r.at(*loss, what + ": 'loss' is not a percentage", "write loss = \"0.1%\"");
    l->loss_pct = pct;
  }
  if (auto s = parse_profile(r, t, what, l); !s) return s;
  if (auto s = get_bool(r, t, "reorder", what, &l->reorder); !s) return s;
  if (l->reorder && l->jitter_ms == 0)
    return r.at(*t.get("reorder"), what + ": 'reorder' without jitter",
                "packets reorder only when their delays vary: add jitter, or leave reorder out");
  return ok_status();
}

Status parse_links(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* links = root.get("link");
  if (!links)
    return r.at(SourcePos{1, 1}, "no [[link]] defined", "add a [[link]] with nodes = [\"a\", \"b\"] and subnet");
  std::set<std::string> seen;
  if (auto s = for_each_table(
          r, root, "link",
          [&](const toml::table& t) -> Status {
            LinkSpec l;
            l.pos = pos_of(t);
            if (auto s = r.only_keys(t, "link",
                                     {"name", "nodes", "subnet", "mtu", "rate", "delay", "jitter", "loss", "profile",
                                      "reorder", "neighbours"});
                !s)
              return s;
            if (auto s = get_string(r, t, "name", "link", &l.name, true, l.pos); !s) return s;
            std::string what = "link '" + l.name + "'";
            if (auto s = check_name(r, pos_of(*t.get("name")), "link", l.name, kMaxLinkName); !s) return s;
            if (l.name == "lo") return r.at(*t.get("name"), "link name 'lo' is reserved", "pick another name");
            if (!seen.insert(l.name).second)
              return r.at(*t.get("name"), what + " is defined twice", "give every link a unique name");
            if (!t.get("nodes")) return r.at(l.pos, what + ": missing key 'nodes'", "add nodes = [\"a\", \"b\"]");
            if (auto s = get_string_list(r, t, "nodes", what, &l.nodes, &l.nodes_pos); !s) return s;
            const toml::array& arr = *t.get("nodes")->as_array();
            std::set<std::string> on_link;
            for (size_t i = 0; i < l.nodes.size(); ++i) {
              if (!has_node(*topo, l.nodes[i])) return unknown_node(r, pos_of(arr[i]), what, l.nodes[i], *topo);
              if (!on_link.insert(l.nodes[i]).second)
                return r.at(arr[i], what + ": node '" + l.nodes[i] + "' is listed twice", "list each node once");
            }
            if (l.nodes.size() < 2)
              return r.at(l.nodes_pos, what + " needs at least two nodes", "write nodes = [\"a\", \"b\"]");
            std::string subnet, why;
            if (auto s = get_string(r, t, "subnet", what, &subnet, true, l.pos); !s) return s;
            auto prefix = parse_ipv4_prefix(subnet, &why);
            if (!prefix) return r.at(*t.get("subnet"), what + ": subnet " + why, "write subnet = \"192.168.77.0/24\"");
            l.subnet = *prefix;
            if (l.subnet.host_count() < l.nodes.size())
              return r.at(*t.get("subnet"),
                          what + ": subnet " + subnet + " has room for " + std::to_string(l.subnet.host_count()) +
                              " hosts, not " + std::to_string(l.nodes.size()),
                          "use a larger subnet");
            if (l.subnet.overlaps(topo->overlay_subnet))
              return r.at(*t.get("subnet"),
                          what + ": subnet " + subnet + " overlaps the overlay subnet " + topo->overlay_subnet.str(),
                          "give the underlay and the overlay separate address ranges");
            for (const auto& other : topo->links)
              if (l.subnet.overlaps(other.subnet))
                return r.at(
                    *t.get("subnet"),
                    what + ": subnet " + subnet + " overlaps link '" + other.name + "' (" + other.subnet.str() + ")",
                    "give every link its own subnet");
            int mtu = 0;
            if (auto s = get_int(r, t, "mtu", what, &mtu, 1280, 65535); !s) return s;
            if (mtu) l.mtu = mtu;
            if (auto s = parse_shaping(r, t, what, &l); !s) return s;
            std::string neighbours = "learned";
            if (auto s = get_string(r, t, "neighbours", what, &neighbours, false, l.pos); !s) return s;
            if (neighbours != "learned" && neighbours != "static")
              return r.at(*t.get("neighbours"), what + ": neighbours = '" + neighbours + "'",
                          "write neighbours = \"static\" or \"learned\" (the default)");
            l.static_neighbours = neighbours == "static";
            topo->links.push_back(std::move(l));
            return ok_status();
          });
      !s)
    return s;
  return ok_status();
}

// Which nodes run the VPN, and which reach it through a gateway (site-to-site).
Status check_routing(const Reader& r, const toml::table&, Topology* topo) {
  std::set<std::string> seen;
  for (const auto& name : topo->vpn_nodes) {
    if (!has_node(*topo, name)) return unknown_node(r, topo->vpn_nodes_pos, "overlay: nodes", name, *topo);
    if (!seen.insert(name).second)
      return r.at(topo->vpn_nodes_pos, "overlay: node '" + name + "' is listed twice", "list each node once");
  }
  if (!topo->vpn_nodes.empty() && topo->vpn_nodes.size() < 2)
    return r.at(topo->vpn_nodes_pos, "overlay: a VPN needs at least two nodes",
                "list two or more nodes in [overlay] nodes");
  for (const auto& n : topo->nodes) {
    if (!n.gateway) continue;
    std::string what = "node '" + n.name + "'";
    if (!has_node(*topo, *n.gateway)) return unknown_node(r, n.gateway_pos, what + ": gateway", *n.gateway, *topo);
    if (runs_vpn(*topo, n.name))
      return r.at(n.gateway_pos, what + " runs the VPN itself, so it has no gateway",
                  "list only the gateways in [overlay] nodes = [...], or remove this gateway");
    if (!runs_vpn(*topo, *n.gateway))
      return r.at(n.gateway_pos, what + ": gateway '" + *n.gateway + "' does not run the VPN",
                  "add it to [overlay] nodes");
    bool shared = std::any_of(topo->links.begin(), topo->links.end(), [&](const LinkSpec& l) {
      return std::count(l.nodes.begin(), l.nodes.end(), n.name) &&
             std::count(l.nodes.begin(), l.nodes.end(), *n.gateway);
    });
    if (!shared)
      return r.at(n.gateway_pos, what + ": no link connects it to its gateway '" + *n.gateway + "'",
                  "add a [[link]] with nodes = [\"" + n.name + "\", \"" + *n.gateway + "\"]");
  }
  return ok_status();
}

}  // namespace

Result<Topology> parse_topology_text(const std::string& text, const std::string& file) {
  Reader r(file);
  if (text.find('\0') != std::string::npos)
    return r.at(SourcePos{1, 1}, "the file is binary, not TOML", "give the path of a topology .toml file");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return r.at(SourcePos{1, 1}, "the file is empty", "see topologies/quick.toml for a complete example");
  auto parsed = parse_toml(r, text);
  if (!parsed) return parsed.error();
  toml::table& root = *parsed;
  // A scale file ([scale], no nodes) is another verb's input: say which, not "unknown key".
  if (root.get("scale") && !root.get("node"))
    return r.at(pos_of(*root.get("scale")), "this is a mesh-scale file ([scale]), not a topology",
                "run it with 'vpnlab scale " + file + "' (validate and plan read topologies)");
  if (auto s = r.only_keys(root, "top level", {"lab", "overlay", "host", "node", "link", "chain", "variant", "bench"});
      !s)
    return s.error();
  Topology topo;
  topo.file = file;
  for (auto step : {parse_lab, parse_overlay, parse_hosts, parse_nodes, parse_links, parse_chains, check_routing,
                    parse_variants, parse_bench})
    if (auto s = step(r, root, &topo); !s) return s.error();
  if (auto s = check_variants_swept(r, topo); !s) return s.error();
  if (backend_traits(topo.backend).remote_hosts)
    if (auto s = check_hosts_layout(topo); !s) return s.error();
  // Node i (file order) gets overlay host i + 1, whether it runs the VPN or not.
  if (topo.overlay_subnet.host_count() < topo.nodes.size())
    return r.at(SourcePos{1, 1},
                "overlay: subnet " + topo.overlay_subnet.str() + " has room for fewer hosts than the " +
                    std::to_string(topo.nodes.size()) + " nodes",
                "use a larger overlay subnet");
  return topo;
}

Result<Topology> load_topology(const std::string& path) {
  auto text = read_input_file(path, kMaxTopologyBytes);
  if (!text) {
    // The file's name is the error's place: the reason alone follows it.
    std::string why = text.error().message;
    for (const std::string& prefix : {"cannot read " + path + ": ", path + ": "})
      if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
    Error e = make_error("cannot read topology: " + why, "check the path; examples are in topologies/");
    e.file = path;
    return e;
  }
  return parse_topology_text(*text, path);
}

}  // namespace vpnlab
