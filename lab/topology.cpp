#include "lab/topology.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "lab/toml_reader.h"

namespace vpnlab {

namespace {

using Reader = TomlReader;

const size_t kMaxLabName = 12;   // goes into namespace names
const size_t kMaxLinkName = 15;  // becomes an interface name inside the nodes (IFNAMSIZ - 1)
const size_t kMaxNodeName = 32;

Status parse_lab(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* lab = root.get("lab");
  if (!lab || !lab->is_table())
    return r.at(SourcePos{1, 1}, "missing [lab] table", "start the file with [lab] and name = \"...\"");
  const toml::table& t = *lab->as_table();
  if (auto s = r.only_keys(t, "lab", {"name", "backend"}); !s) return s;
  if (auto s = get_string(r, t, "name", "lab", &topo->lab_name, true, pos_of(t)); !s) return s;
  if (auto s = check_name(r, pos_of(*t.get("name")), "lab", topo->lab_name, kMaxLabName); !s) return s;
  if (auto s = get_string(r, t, "backend", "lab", &topo->backend, false, pos_of(t)); !s) return s;
  if (topo->backend == "vm")
    return r.at(*t.get("backend"), "lab: backend 'vm' is not available in this version",
                "use backend = \"netns\" (the VM backend is a later feature)");
  if (topo->backend != "netns")
    return r.at(*t.get("backend"), "lab: unknown backend '" + topo->backend + "'", "use backend = \"netns\"");
  return ok_status();
}

Status parse_overlay(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* ov = root.get("overlay");
  if (!ov || !ov->is_table()) return r.at(SourcePos{1, 1}, "missing [overlay] table",
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
      return r.at(*mtu, "overlay: mtu = \"" + mtu->as_string()->get() + "\" is not understood", "give an integer, e.g. mtu = 1400, or \"auto\"");
    topo->overlay_mtu = 0;  // auto: the largest MTU every selected product carries
  } else if (auto s = get_int(r, t, "mtu", "overlay", &topo->overlay_mtu, 576, 9000); !s) {
    return s;
  }
  if (auto s = get_int(r, t, "port", "overlay", &topo->overlay_port, 1, 65535); !s) return s;
  if (const toml::node* nodes = t.get("nodes"))
    return r.at(*nodes, "overlay: 'nodes' (routed topologies) is not available in this version",
                "remove it: every node runs the VPN");
  return ok_status();
}

Status parse_nodes(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* nodes = root.get("node");
  if (!nodes) return r.at(SourcePos{1, 1}, "no [[node]] defined", "add at least two [[node]] tables with name = \"...\"");
  if (!nodes->is_array_of_tables()) return r.at(*nodes, "'node' must be an array of tables", "write [[node]]");
  std::set<std::string> seen;
  for (const auto& item : *nodes->as_array()) {
    const toml::table& t = *item.as_table();
    NodeSpec n;
    n.pos = pos_of(t);
    if (auto s = r.only_keys(t, "node", {"name", "cpus", "load_cpus", "gateway"}); !s) return s;
    if (auto s = get_string(r, t, "name", "node", &n.name, true, n.pos); !s) return s;
    std::string what = "node '" + n.name + "'";
    if (auto s = check_name(r, pos_of(*t.get("name")), "node", n.name, kMaxNodeName); !s) return s;
    if (!seen.insert(n.name).second)
      return r.at(*t.get("name"), what + " is defined twice", "give every node a unique name");
    if (auto s = get_cpu_list(r, t, "cpus", what, &n.cpus); !s) return s;
    if (auto s = get_cpu_list(r, t, "load_cpus", what, &n.load_cpus); !s) return s;
    if (const toml::node* gw = t.get("gateway"))
      return r.at(*gw, what + ": 'gateway' (routed topologies) is not available in this version",
                  "remove it: every node runs the VPN");
    topo->nodes.push_back(std::move(n));
  }
  if (topo->nodes.size() < 2)
    return r.at(pos_of(*nodes), "a topology needs at least two nodes", "add another [[node]]");
  return ok_status();
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
              guess.empty() ? "define it with [[node]] name = \"" + name + "\", or use one of: " + Reader::join(node_names(topo))
                            : "did you mean '" + guess + "'?");
}

Status parse_links(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* links = root.get("link");
  if (!links) return r.at(SourcePos{1, 1}, "no [[link]] defined", "add a [[link]] with nodes = [\"a\", \"b\"] and subnet");
  if (!links->is_array_of_tables()) return r.at(*links, "'link' must be an array of tables", "write [[link]]");
  std::set<std::string> seen;
  for (const auto& item : *links->as_array()) {
    const toml::table& t = *item.as_table();
    LinkSpec l;
    l.pos = pos_of(t);
    if (auto s = r.only_keys(t, "link", {"name", "nodes", "subnet", "mtu", "rate"}); !s) return s;
    if (auto s = get_string(r, t, "name", "link", &l.name, true, l.pos); !s) return s;
    std::string what = "link '" + l.name + "'";
    if (auto s = check_name(r, pos_of(*t.get("name")), "link", l.name, kMaxLinkName); !s) return s;
    if (l.name == "lo") return r.at(*t.get("name"), "link name 'lo' is reserved", "pick another name");
    if (!seen.insert(l.name).second) return r.at(*t.get("name"), what + " is defined twice", "give every link a unique name");
    if (!t.get("nodes")) return r.at(l.pos, what + ": missing key 'nodes'", "add nodes = [\"a\", \"b\"]");
    if (auto s = get_string_list(r, t, "nodes", what, &l.nodes, &l.nodes_pos); !s) return s;
    const toml::array& arr = *t.get("nodes")->as_array();
    std::set<std::string> on_link;
    for (size_t i = 0; i < l.nodes.size(); ++i) {
      if (!has_node(*topo, l.nodes[i])) return unknown_node(r, pos_of(arr[i]), what, l.nodes[i], *topo);
      if (!on_link.insert(l.nodes[i]).second)
        return r.at(arr[i], what + ": node '" + l.nodes[i] + "' is listed twice", "list each node once");
    }
    if (l.nodes.size() < 2) return r.at(l.nodes_pos, what + " needs at least two nodes", "write nodes = [\"a\", \"b\"]");
    std::string subnet, why;
    if (auto s = get_string(r, t, "subnet", what, &subnet, true, l.pos); !s) return s;
    auto prefix = parse_ipv4_prefix(subnet, &why);
    if (!prefix) return r.at(*t.get("subnet"), what + ": subnet " + why, "write subnet = \"192.168.77.0/24\"");
    l.subnet = *prefix;
    if (l.subnet.host_count() < l.nodes.size())
      return r.at(*t.get("subnet"), what + ": subnet " + subnet + " has room for " + std::to_string(l.subnet.host_count()) +
                  " hosts, not " + std::to_string(l.nodes.size()), "use a larger subnet");
    if (l.subnet.overlaps(topo->overlay_subnet))
      return r.at(*t.get("subnet"), what + ": subnet " + subnet + " overlaps the overlay subnet " + topo->overlay_subnet.str(),
                  "give the underlay and the overlay separate address ranges");
    for (const auto& other : topo->links)
      if (l.subnet.overlaps(other.subnet))
        return r.at(*t.get("subnet"), what + ": subnet " + subnet + " overlaps link '" + other.name + "' (" + other.subnet.str() + ")",
                    "give every link its own subnet");
    int mtu = 0;
    if (auto s = get_int(r, t, "mtu", what, &mtu, 1280, 65535); !s) return s;
    if (mtu) l.mtu = mtu;
    if (const toml::node* rate = t.get("rate"))
      return r.at(*rate, what + ": 'rate' (link shaping) is not available in this version", "remove it");
    topo->links.push_back(std::move(l));
  }
  return ok_status();
}

Status parse_tests(const Reader& r, const toml::table& bench, Topology* topo) {
  const toml::node* tests = bench.get("test");
  if (!tests) return r.at(pos_of(bench), "bench: no [[bench.test]] defined",
                          "add [[bench.test]] with name, client and server");
  if (!tests->is_array_of_tables()) return r.at(*tests, "bench: 'test' must be an array of tables", "write [[bench.test]]");
  std::set<std::string> seen;
  for (const auto& item : *tests->as_array()) {
    const toml::table& t = *item.as_table();
    TestSpec ts;
    ts.pos = pos_of(t);
    if (auto s = r.only_keys(t, "test", {"name", "client", "server", "streams", "reverse", "mss", "bidirectional", "udp", "bitrate", "length"}); !s)
      return s;
    if (auto s = get_string(r, t, "name", "test", &ts.name, true, ts.pos); !s) return s;
    std::string what = "test '" + ts.name + "'";
    if (auto s = check_name(r, pos_of(*t.get("name")), "test", ts.name, 32); !s) return s;
    if (!seen.insert(ts.name).second) return r.at(*t.get("name"), what + " is defined twice", "give every test a unique name");
    if (auto s = get_string(r, t, "client", what, &ts.client, true, ts.pos); !s) return s;
    if (!has_node(*topo, ts.client)) return unknown_node(r, pos_of(*t.get("client")), what, ts.client, *topo);
    const toml::node* server = t.get("server");
    if (!server) return r.at(ts.pos, what + ": missing key 'server'", "add server = \"b\"");
    if (!server->is_string())
      return r.at(*server, what + ": 'server' must be a node name" + std::string(server->is_array() ? " (lists are not available in this version)" : ""),
                  "write server = \"b\"");
    ts.servers = {server->as_string()->get()};
    if (!has_node(*topo, ts.servers[0])) return unknown_node(r, pos_of(*server), what, ts.servers[0], *topo);
    if (ts.servers[0] == ts.client) return r.at(*server, what + ": client and server are both '" + ts.client + "'", "use two different nodes");
    if (auto s = get_int(r, t, "streams", what, &ts.streams, 1, 128); !s) return s;
    if (auto s = get_bool(r, t, "reverse", what, &ts.reverse); !s) return s;
    int mss = 0;
    if (auto s = get_int(r, t, "mss", what, &mss, 88, 9000); !s) return s;
    if (mss) {
      if (topo->overlay_mtu > 0 && mss > topo->overlay_mtu - 40)
        return r.at(*t.get("mss"), what + ": mss " + std::to_string(mss) + " does not fit the overlay MTU " + std::to_string(topo->overlay_mtu),
                    "use at most " + std::to_string(topo->overlay_mtu - 40) + " (MTU - 40)");
      ts.mss = mss;
    }
    for (const char* later : {"bidirectional", "udp", "bitrate", "length"})
      if (const toml::node* n = t.get(later))
        return r.at(*n, what + ": '" + std::string(later) + "' is not available in this version", "remove it");
    topo->bench.tests.push_back(std::move(ts));
  }
  return ok_status();
}

Status parse_bench(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* b = root.get("bench");
  if (!b || !b->is_table()) return r.at(SourcePos{1, 1}, "missing [bench] table", "add [bench] with products and [[bench.test]]");
  const toml::table& t = *b->as_table();
  if (auto s = r.only_keys(t, "bench", {"products", "samples", "duration", "warmup", "test", "threads"}); !s) return s;
  if (auto s = get_string_list(r, t, "products", "bench", &topo->bench.products, &topo->bench.products_pos); !s) return s;
  if (topo->bench.products.empty()) return r.at(topo->bench.products_pos, "bench: 'products' is empty", "write products = [\"baseline\", \"wireguard-go\"]");
  if (auto s = get_int(r, t, "samples", "bench", &topo->bench.samples, 1, 1000); !s) return s;
  if (auto s = get_duration(r, t, "duration", "bench", &topo->bench.duration_s, 1); !s) return s;
  if (auto s = get_duration(r, t, "warmup", "bench", &topo->bench.warmup_s, 0); !s) return s;
  if (const toml::node* th = t.get("threads"))
    return r.at(*th, "bench: 'threads' is not available in this version", "remove it");
  return parse_tests(r, t, topo);
}

}  // namespace

Result<Topology> parse_topology_text(const std::string& text, const std::string& file) {
  Reader r(file);
  if (text.find('\0') != std::string::npos)
    return r.at(SourcePos{1, 1}, "the file is binary, not TOML", "give the path of a topology .toml file");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return r.at(SourcePos{1, 1}, "the file is empty", "see topologies/quick.toml for a complete example");
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& err) {
    return r.at(SourcePos{static_cast<int>(err.source().begin.line), static_cast<int>(err.source().begin.column)},
                "not valid TOML: " + std::string(err.description()), "fix the syntax at this position");
  }
  if (auto s = r.only_keys(root, "top level", {"lab", "overlay", "node", "link", "bench"}); !s) return s.error();
  Topology topo;
  topo.file = file;
  for (auto step : {parse_lab, parse_overlay, parse_nodes, parse_links, parse_bench})
    if (auto s = step(r, root, &topo); !s) return s.error();
  if (topo.overlay_subnet.host_count() < topo.nodes.size())
    return r.at(SourcePos{1, 1}, "overlay: subnet " + topo.overlay_subnet.str() + " has room for fewer hosts than the " +
                std::to_string(topo.nodes.size()) + " nodes", "use a larger overlay subnet");
  return topo;
}

Result<Topology> load_topology(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Error e = make_error("cannot read topology: " + errno_text(errno), "check the path; examples are in topologies/");
    e.file = path;
    return e;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_topology_text(buf.str(), path);
}

}  // namespace vpnlab
