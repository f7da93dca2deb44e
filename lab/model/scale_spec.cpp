#include "lab/model/scale_spec.h"

#include <set>

#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/model/toml_reader.h"
#include "lab/model/topology.h"

namespace vpnlab {
namespace {

Status get_prefix(const TomlReader& r, const toml::table& t, const std::string& key, Ipv4Prefix* out) {
  const toml::node* n = t.get(key);
  if (!n) return ok_status();
  std::string why;
  auto p = n->is_string() ? parse_ipv4_prefix(n->as_string()->get(), &why) : std::nullopt;
  if (!p)
    return r.at(*n, "scale: '" + key + "' must be an IPv4 subnet" + (why.empty() ? "" : " (" + why + ")"),
                "write " + key + " = \"10.90.0.0/16\"");
  *out = *p;
  return ok_status();
}

Status get_seconds(const TomlReader& r, const toml::table& t, const std::string& key, double min, double max,
                   double* out) {
  const toml::node* n = t.get(key);
  if (!n) return ok_status();
  auto v = n->is_string() ? parse_duration(n->as_string()->get()) : std::nullopt;
  if (!v || *v < min || *v > max)
    return r.at(*n,
                "scale: '" + key + "' must be a duration from " + std::to_string(static_cast<int>(min)) + " s to " +
                    std::to_string(static_cast<int>(max)) + " s",
                "write " + key + " = \"60s\"");
  *out = *v;
  return ok_status();
}

Status parse_sizes(const TomlReader& r, const toml::table& t, ScaleSpec* spec) {
  const toml::node* n = t.get("nodes");
  if (!n) return r.at(SourcePos{1, 1}, "scale: missing key 'nodes'", "add nodes = [5, 25, 100] to [scale]");
  if (!n->is_array() || n->as_array()->empty())
    return r.at(*n, "scale: 'nodes' must be a list of mesh sizes", "write nodes = [5, 25, 100]");
  std::set<int> seen;
  for (const auto& item : *n->as_array()) {
    int64_t v = item.is_integer() ? item.as_integer()->get() : 0;
    if (v < 3 || v > kMaxScaleNodes)
      return r.at(
          item, "scale: a mesh of " + (item.is_integer() ? std::to_string(v) : std::string(type_name(item))) + " nodes",
          "mesh sizes go from 3 to " + std::to_string(kMaxScaleNodes) +
              " (two nodes are no mesh: 'vpnlab run' measures them)");
    if (!seen.insert(static_cast<int>(v)).second)
      return r.at(item, "scale: a mesh of " + std::to_string(v) + " nodes is listed twice", "list each size once");
    spec->sizes.push_back(static_cast<int>(v));
  }
  return ok_status();
}

}  // namespace

Result<ScaleSpec> parse_scale_text(const std::string& text, const std::string& file) {
  TomlReader r(file);
  auto parsed = parse_toml(r, text);
  if (!parsed) return parsed.error();
  toml::table& root = *parsed;
  if (auto s = r.only_keys(root, "top level", {"lab", "scale"}); !s) return s.error();
  ScaleSpec spec;
  spec.file = file;
  spec.overlay = *parse_ipv4_prefix("10.90.0.0/16", nullptr);
  spec.underlay = *parse_ipv4_prefix("192.168.88.0/22", nullptr);
  const toml::table* lab = root["lab"].as_table();
  if (!lab) return r.at(SourcePos{1, 1}, "missing table [lab]", "add [lab] with name = \"meshscale\"");
  if (auto s = r.only_keys(*lab, "lab", {"name"}); !s) return s.error();
  if (auto s = get_string(r, *lab, "name", "lab", &spec.lab_name, true, pos_of(*lab)); !s) return s.error();
  if (auto s = check_name(r, pos_of(*lab), "lab", spec.lab_name, kMaxLabName); !s) return s.error();
  const toml::table* t = root["scale"].as_table();
  if (!t)
    return r.at(SourcePos{1, 1}, "missing table [scale]",
                "add [scale] with nodes = [5, 25, 100] and products = [\"nebula\"]");
  if (auto s = r.only_keys(*t, "scale",
                           {"nodes", "products", "overlay", "underlay", "mtu", "port", "converge_timeout", "duration"});
      !s)
    return s.error();
  if (auto s = parse_sizes(r, *t, &spec); !s) return s.error();
  SourcePos products_pos;
  if (auto s = get_string_list(r, *t, "products", "scale", &spec.products, &products_pos); !s) return s.error();
  if (spec.products.empty())
    return r.at(pos_of(*t), "scale: no products", "add products = [\"nebula\", \"wireguard-go\"]");
  for (auto [key, prefix] : {std::pair{"overlay", &spec.overlay}, {"underlay", &spec.underlay}})
    if (auto s = get_prefix(r, *t, key, prefix); !s) return s.error();
  if (auto s = get_int(r, *t, "mtu", "scale", &spec.mtu, 576, 9000); !s) return s.error();
  if (auto s = get_int(r, *t, "port", "scale", &spec.port, 1, 65535); !s) return s.error();
  if (auto s = get_seconds(r, *t, "converge_timeout", 5, 3600, &spec.converge_timeout_s); !s) return s.error();
  if (auto s = get_seconds(r, *t, "duration", 1, 600, &spec.duration_s); !s) return s.error();
  int largest = 0;
  for (int n : spec.sizes) largest = std::max(largest, n);
  for (auto [key, prefix] : {std::pair{"overlay", spec.overlay}, {"underlay", spec.underlay}})
    if (prefix.host_count() < static_cast<uint64_t>(largest))
      return r.at(t->get(key) ? pos_of(*t->get(key)) : pos_of(*t),
                  std::string("scale: the ") + key + " subnet " + prefix.str() + " has room for fewer hosts than " +
                      std::to_string(largest) + " nodes",
                  "use a larger subnet (a /16 has room for any mesh)");
  return spec;
}

Result<ScaleSpec> load_scale_spec(const std::string& path) {
  auto text = read_input_file(path, kMaxTopologyBytes);
  if (!text) return make_error(text.error().message, "check the path; topologies/mesh-scale.toml is an example");
  return parse_scale_text(*text, path);
}

std::string mesh_topology_text(const ScaleSpec& spec, int nodes) {
  std::string names;
  std::string text =
      "# Generated by 'vpnlab scale' from " + spec.file + ": a mesh of " + std::to_string(nodes) + " nodes.\n";
  text += "[lab]\nname = \"" + spec.lab_name + "\"\n\n[overlay]\nsubnet = \"" + spec.overlay.str() +
          "\"\nmtu = " + std::to_string(spec.mtu) + "\nport = " + std::to_string(spec.port) + "\n\n";
  for (int i = 1; i <= nodes; ++i) {
    text += "[[node]]\nname = \"n" + std::to_string(i) + "\"\n";
    names += (i > 1 ? ", \"n" : "\"n") + std::to_string(i) + "\"";
  }
  text += "\n[[link]]\nname = \"lan\"\nnodes = [" + names + "]\nsubnet = \"" + spec.underlay.str() +
          "\"\n# Learned ARP entries of a large mesh overflow the kernel's table, which all namespaces "
          "share.\nneighbours = \"static\"\n\n[bench]\nproducts = [";
  for (size_t i = 0; i < spec.products.size(); ++i) text += (i ? ", \"" : "\"") + spec.products[i] + "\"";
  text +=
      "]\nsamples = 1\nduration = \"" + std::to_string(static_cast<int>(spec.duration_s)) + "s\"\nwarmup = \"0s\"\n\n";
  text += "[[bench.test]]\nname = \"n1-to-n" + std::to_string(nodes) + "\"\nclient = \"n1\"\nserver = \"n" +
          std::to_string(nodes) + "\"\n";
  return text;
}

}  // namespace vpnlab
