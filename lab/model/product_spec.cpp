#include "lab/model/product_spec.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/model/names.h"
#include "lab/model/toml_reader.h"

namespace vpnlab {

namespace {

Status parse_nodes_filter(const TomlReader& r, const toml::table& t, const std::string& what, NodeFilter* out) {
  std::string v;
  if (auto s = get_string(r, t, "nodes", what, &v, false, {}); !s) return s;
  if (v.empty() || v == "all")
    *out = NodeFilter::All;
  else if (v == "first")
    *out = NodeFilter::First;
  else if (v == "others")
    *out = NodeFilter::Others;
  else if (v == "relays")
    *out = NodeFilter::Relays;
  else
    return r.at(*t.get("nodes"), what + ": nodes = \"" + v + "\" is not known",
                "use \"all\", \"first\", \"others\" or \"relays\"");
  return ok_status();
}

Status parse_template_file(const TomlReader& r, const toml::table& t, const std::string& dir, const std::string& what,
                           PrepareStep* p) {
  std::string tmpl;
  if (auto s = get_string(r, t, "template", what, &tmpl, true, pos_of(t)); !s) return s;
  if (p->file.empty() || p->file[0] == '/' || p->file.find("..") != std::string::npos)
    return r.at(pos_of(t), what + ": '" + p->file + "' must be a relative path inside the node's directory",
                "e.g. \"tinc/tinc.conf\"");
  // The template is part of the product folder: a path that leaves it (../, absolute, a
  // symlink out) would copy any file of the host into logs and configs.
  std::error_code ec;
  auto folder = std::filesystem::weakly_canonical(dir, ec).string() + "/";
  auto target = std::filesystem::weakly_canonical(std::filesystem::path(dir) / tmpl, ec).string();
  if (tmpl.empty() || tmpl[0] == '/' || ec || target.rfind(folder, 0) != 0)
    return r.at(*t.get("template"), what + ": template '" + tmpl + "' is outside the product folder " + dir,
                "put the template next to product.toml and name it relative to it, e.g. template = \"wg.conf.tmpl\"");
  p->template_path = dir + "/" + tmpl;
  auto text = read_input_file(p->template_path, kMaxTopologyBytes);
  if (!text)
    return r.at(*t.get("template"), what + ": cannot read template " + p->template_path,
                "put the template next to product.toml");
  p->template_text = *text;
  if (auto s = get_bool(r, t, "secret", what, &p->secret); !s) return s;
  return get_bool(r, t, "executable", what, &p->executable);
}

// capture = { name = "Prefix: " } of a [[prepare]] run entry or a run step.
Status parse_capture(const TomlReader& r, const toml::table& c, const std::string& what,
                     std::vector<std::pair<std::string, std::string>>* out) {
  for (auto&& [k, v] : c) {
    if (!v.is_string())
      return r.at(v, what + ": capture prefix must be a string",
                  "write name = \"Prefix: \" (\"\" for the whole output)");
    out->emplace_back(std::string(k.str()), v.as_string()->get());
  }
  return ok_status();
}

Status parse_prepare(const TomlReader& r, const toml::table& t, const std::string& dir, PrepareStep* p) {
  if (auto s =
          r.only_keys(t, "prepare", {"scope", "run", "file", "template", "secret", "executable", "capture", "nodes"});
      !s)
    return s;
  std::string scope = "node";
  if (auto s = get_string(r, t, "scope", "prepare", &scope, false, {}); !s) return s;
  if (scope == "run")
    p->scope = PrepareStep::Scope::Run;
  else if (scope == "node")
    p->scope = PrepareStep::Scope::Node;
  else if (scope == "peer")
    p->scope = PrepareStep::Scope::Peer;
  else
    return r.at(*t.get("scope"), "prepare: scope = \"" + scope + "\" is not known",
                "use \"run\", \"node\" or \"peer\"");
  if (auto s = parse_nodes_filter(r, t, "prepare", &p->nodes); !s) return s;
  bool has_run = t.get("run") != nullptr, has_file = t.get("file") != nullptr;
  if (has_run == has_file)
    return r.at(pos_of(t), "prepare: give exactly one of run or file", "run = [argv] or file = \"name\" with template");
  if (has_run) {
    if (auto s = get_string_list(r, t, "run", "prepare", &p->argv, nullptr); !s) return s;
    if (p->argv.empty()) return r.at(*t.get("run"), "prepare: empty argv", "name the program and its arguments");
  } else {
    if (auto s = get_string(r, t, "file", "prepare", &p->file, true, pos_of(t)); !s) return s;
    if (auto s = parse_template_file(r, t, dir, "prepare", p); !s) return s;
  }
  if (const toml::node* c = t.get("capture")) {
    if (!c->is_table() || !has_run)
      return r.at(*c, "prepare: 'capture' must be a table on a run entry", "write capture = { name = \"Prefix: \" }");
    if (p->scope == PrepareStep::Scope::Peer)
      return r.at(*c, "prepare: a peer-scope entry cannot capture values", "capture in a node-scope entry");
    if (auto s = parse_capture(r, *c->as_table(), "prepare", &p->capture); !s) return s;
  }
  return ok_status();
}

}  // namespace

const std::vector<StepKindDef>& step_kinds() {
  static const std::vector<StepKindDef> kinds = {
      {ProductStep::Kind::Daemon, "daemon", StepKindDef::Value::Argv},
      {ProductStep::Kind::Run, "run", StepKindDef::Value::Argv},
      {ProductStep::Kind::WaitLink, "wait_link", StepKindDef::Value::Name},
      {ProductStep::Kind::Configure, "configure", StepKindDef::Value::Name},
      {ProductStep::Kind::CreateLink, "create_link", StepKindDef::Value::Name},
      // Per-namespace settings a product needs before it starts (yggdrasil: IPv6 on the
      // interfaces it makes; the lab turns IPv6 off in every node).
      {ProductStep::Kind::Sysctl, "sysctl", StepKindDef::Value::Table},
      // A TCP port that says a daemon is up (a control server), by the kernel's socket table.
      {ProductStep::Kind::WaitListen, "wait_listen", StepKindDef::Value::Name},
  };
  return kinds;
}

namespace {

Status parse_step(const TomlReader& r, const toml::table& t, ProductStep* step) {
  std::vector<std::string> keys = {"kind",    "if_id", "vni",     "remote", "dstport",
                                   "capture", "env",   "timeout", "retry",  "nodes"};
  std::string kind_keys;
  for (const auto& k : step_kinds()) {
    keys.push_back(k.key);
    kind_keys += std::string(kind_keys.empty() ? "" : ", ") + k.key;
  }
  if (auto s = r.only_keys(t, "step", keys); !s) return s;
  if (auto s = get_duration(r, t, "retry", "step", &step->retry_s, 0.001); !s) return s;
  if (auto s = parse_nodes_filter(r, t, "step", &step->nodes); !s) return s;
  const StepKindDef* def = nullptr;
  int kinds = 0;
  for (const auto& k : step_kinds())
    if (t.get(k.key)) def = &k, ++kinds;
  if (kinds != 1)
    return r.at(pos_of(t), "step: give exactly one of " + kind_keys,
                "e.g. run = [\"wg\", \"setconf\", \"{{interface}}\", \"{{secrets}}/wg.conf\"]");
  step->kind = def->kind;
  if (def->value == StepKindDef::Value::Argv) {
    SourcePos argv_pos;
    if (auto s = get_string_list(r, t, def->key, "step", &step->argv, &argv_pos); !s) return s;
    if (step->argv.empty()) return r.at(argv_pos, "step: empty argv", "name the program and its arguments");
  } else if (def->value == StepKindDef::Value::Table) {
    if (auto s = parse_net_sysctls(r, *t.get(def->key), "step", &step->sysctls); !s) return s;
  } else if (auto s = get_string(r, t, def->key, "step", &step->ifname, false, pos_of(t)); !s) {
    return s;
  }
  if (auto s =
          get_string(r, t, "kind", "step", &step->link_kind, step->kind == ProductStep::Kind::CreateLink, pos_of(t));
      !s)
    return s;
  int if_id = 0, vni = 0;
  if (auto s = get_int(r, t, "if_id", "step", &if_id, 1, 0x7fffffff); !s) return s;
  if (auto s = get_int(r, t, "vni", "step", &vni, 1, 16777215); !s) return s;
  if (auto s = get_int(r, t, "dstport", "step", &step->link.dstport, 1, 65535); !s) return s;
  if (auto s = get_string(r, t, "remote", "step", &step->link.remote, false, pos_of(t)); !s) return s;
  step->link.if_id = static_cast<uint32_t>(if_id);
  step->link.vni = static_cast<uint32_t>(vni);
  if (auto s = get_duration(r, t, "timeout", "step", &step->timeout_s, 0.001); !s) return s;
  if (const toml::node* c = t.get("capture")) {
    if (!c->is_table() || step->kind != ProductStep::Kind::Run)
      return r.at(*c, "step: 'capture' must be a table on a run step", "write capture = { name = \"Prefix: \" }");
    if (auto s = parse_capture(r, *c->as_table(), "step", &step->capture); !s) return s;
  }
  if (const toml::node* env = t.get("env")) {
    if (!env->is_table()) return r.at(*env, "step: 'env' must be a table", "write env = { NAME = \"value\" }");
    for (auto&& [k, v] : *env->as_table()) {
      if (!v.is_string()) return r.at(v, "step: env value must be a string", "write NAME = \"value\"");
      step->env[std::string(k.str())] = v.as_string()->get();
    }
  }
  return ok_status();
}

// The [[file]] tables of `parent` (a product's, or a service's [[service.file]]): node-scope
// files rendered from templates in the product folder.
Status parse_files(const TomlReader& r, const toml::table& parent, const std::string& dir,
                   std::vector<PrepareStep>* out) {
  return for_each_table(r, parent, "file", [&](const toml::table& t) -> Status {
    if (auto s = r.only_keys(t, "file", {"name", "template", "secret", "executable"}); !s) return s;
    PrepareStep f;
    if (auto s = get_string(r, t, "name", "file", &f.file, true, pos_of(t)); !s) return s;
    if (auto s = parse_template_file(r, t, dir, "file", &f); !s) return s;
    out->push_back(std::move(f));
    return ok_status();
  });
}

// The [[step]] tables of `parent` (a product's, or a service's [[service.step]]).
Status parse_steps(const TomlReader& r, const toml::table& parent, std::vector<ProductStep>* out) {
  return for_each_table(r, parent, "step", [&](const toml::table& t) -> Status {
    ProductStep step;
    if (auto s = parse_step(r, t, &step); !s) return s;
    out->push_back(std::move(step));
    return ok_status();
  });
}

// [[service]]: name, its [[service.file]] templates and [[service.step]] steps.
Status parse_services(const TomlReader& r, const toml::table& root, ProductSpec* spec) {
  return for_each_table(r, root, "service", [&](const toml::table& t) -> Status {
    if (auto s = r.only_keys(t, "service", {"name", "file", "step"}); !s) return s;
    ServiceSpec svc;
    if (auto s = get_string(r, t, "name", "service", &svc.name, true, pos_of(t)); !s) return s;
    if (svc.name.empty() || svc.name.size() > 11 ||
        svc.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") != std::string::npos)
      return r.at(*t.get("name"), "service: name '" + svc.name + "' is not 1 to 11 of [a-z0-9]",
                  "it names a namespace and template values, e.g. \"headscale\"");
    for (const auto& other : spec->services)
      if (other.name == svc.name)
        return r.at(*t.get("name"), "service: a second service '" + svc.name + "'", "give each its own name");
    if (auto s = parse_files(r, t, spec->dir, &svc.prepare); !s) return s;
    if (auto s = parse_steps(r, t, &svc.steps); !s) return s;
    if (svc.steps.empty())
      return r.at(pos_of(t), "service '" + svc.name + "' has no [[service.step]]",
                  "start its daemon with daemon = [argv]");
    spec->services.push_back(std::move(svc));
    return ok_status();
  });
}

// [path], [ready] and [counters]: the product's own checks of its path, readiness and
// counters.
Status parse_checks(const TomlReader& r, const toml::table& root, ProductSpec* spec) {
  if (const toml::node* p = root.get("path")) {
    if (!p->is_table()) return r.at(*p, "'path' must be a table", "write [path] with argv and expect");
    const toml::table& t = *p->as_table();
    if (auto s = r.only_keys(t, "path", {"argv", "expect", "relayed"}); !s) return s;
    PathCheck pc;
    if (auto s = get_string_list(r, t, "argv", "path", &pc.argv, nullptr); !s) return s;
    if (auto s = get_string(r, t, "expect", "path", &pc.expect, true, pos_of(t)); !s) return s;
    if (auto s = get_string(r, t, "relayed", "path", &pc.relayed, false, pos_of(t)); !s) return s;
    if (pc.argv.empty() || pc.expect.empty())
      return r.at(*p, "path: argv and expect are both required", "see products/README.md");
    spec->path = pc;
  }
  if (const toml::node* ready = root.get("ready")) {
    if (!ready->is_table()) return r.at(*ready, "'ready' must be a table", "write [ready]");
    if (auto s = r.only_keys(*ready->as_table(), "ready", {"timeout"}); !s) return s;
    if (auto s = get_duration(r, *ready->as_table(), "timeout", "ready", &spec->ready_timeout_s, 0.1); !s) return s;
  }
  if (const toml::node* c = root.get("counters")) {
    if (!c->is_table()) return r.at(*c, "'counters' must be a table", "write [counters]");
    const toml::table& t = *c->as_table();
    if (auto s = r.only_keys(t, "counters", {"argv", "rx_field", "tx_field"}); !s) return s;
    CounterSpec cs;
    if (auto s = get_string_list(r, t, "argv", "counters", &cs.argv, nullptr); !s) return s;
    if (auto s = get_int(r, t, "rx_field", "counters", &cs.rx_field, 1, 64); !s) return s;
    if (auto s = get_int(r, t, "tx_field", "counters", &cs.tx_field, 1, 64); !s) return s;
    if (cs.argv.empty() || !cs.rx_field || !cs.tx_field)
      return r.at(*c, "counters: argv, rx_field and tx_field are all required", "see products/README.md");
    spec->counters = cs;
  }
  return ok_status();
}

// Files, prepare steps, steps, registry sources, services and their start order.
Status parse_bringup(const TomlReader& r, const toml::table& root, ProductSpec* spec) {
  if (auto s = parse_files(r, root, spec->dir, &spec->prepare); !s) return s;
  if (auto s = for_each_table(r, root, "prepare",
                              [&](const toml::table& t) -> Status {
                                PrepareStep p;
                                if (auto s = parse_prepare(r, t, spec->dir, &p); !s) return s;
                                spec->prepare.push_back(std::move(p));
                                return ok_status();
                              });
      !s)
    return s;
  if (auto s = parse_steps(r, root, &spec->steps); !s) return s;
  if (auto s = parse_sources(r, root, spec); !s) return s;
  if (auto s = parse_services(r, root, spec); !s) return s;
  std::string order = "reverse";
  if (auto s = get_string(r, root, "start_order", "product", &order, false, {}); !s) return s;
  if (order != "reverse" && order != "file")
    return r.at(*root.get("start_order"), "product: start_order '" + order + "' is not known",
                "\"reverse\" (the default: the first node, the initiator, starts last) or \"file\"");
  spec->start_in_file_order = order == "file";
  return ok_status();
}

Status parse_spec(const TomlReader& r, const toml::table& root, ProductSpec* spec) {
  if (auto s = r.only_keys(root, "product",
                           {"name",           "description", "cipher",      "threads",   "offloads",      "packages",
                            "binaries",       "version",     "tunnel",      "interface", "underlay_port", "relay_port",
                            "interface_kind", "requires",    "keys",        "topology",  "max_mtu",       "overhead",
                            "file",           "prepare",     "step",        "ready",     "counters",      "source",
                            "origin",         "service",     "start_order", "path",      "encrypted",     "bringup_s"});
      !s)
    return s;
  std::string name;
  if (auto s = get_string(r, root, "name", "product", &name, true, SourcePos{1, 1}); !s) return s;
  if (name != spec->name)
    return r.at(*root.get("name"), "product: name '" + name + "' differs from its folder '" + spec->name + "'",
                "make them equal");
  if (auto s = get_string(r, root, "description", "product", &spec->description, false, {}); !s) return s;
  if (auto s = get_string(r, root, "origin", "product", &spec->origin, false, {}); !s) return s;
  if (auto s = get_string(r, root, "cipher", "product", &spec->cipher, true, SourcePos{1, 1}); !s) return s;
  if (auto s = get_string(r, root, "threads", "product", &spec->threads, false, SourcePos{1, 1}); !s) return s;
  if (auto s = get_bool(r, root, "offloads", "product", &spec->offloads); !s) return s;
  if (auto s = get_string_list(r, root, "packages", "product", &spec->packages, nullptr); !s) return s;
  if (auto s = get_string_list(r, root, "binaries", "product", &spec->binaries, nullptr); !s) return s;
  if (auto s = get_string_list(r, root, "version", "product", &spec->version_argv, nullptr); !s) return s;
  if (auto s = get_bool(r, root, "tunnel", "product", &spec->tunnel); !s) return s;
  if (auto s = get_bool(r, root, "encrypted", "product", &spec->encrypted); !s) return s;
  if (!spec->encrypted && spec->cipher.rfind("none", 0) != 0)
    return r.at(*root.get("encrypted"), "product: encrypted = false but its cipher is '" + spec->cipher + "'",
                "start the cipher with \"none\" (e.g. \"none (encryption off)\"): it keeps the product out of the "
                "tunnels' conclusion");
  if (auto s = get_string(r, root, "interface", "product", &spec->interface, spec->tunnel, SourcePos{1, 1}); !s)
    return s;
  if (auto s = get_string(r, root, "keys", "product", &spec->keys, false, {}); !s) return s;
  if (auto s = get_string(r, root, "interface_kind", "product", &spec->interface_kind, false, {}); !s) return s;
  spec->underlay_port = "{{port}}";
  if (auto s = get_string(r, root, "underlay_port", "product", &spec->underlay_port, false, {}); !s) return s;
  if (auto s = get_string(r, root, "relay_port", "product", &spec->relay_port, false, {}); !s) return s;
  if (auto s = get_string_list(r, root, "requires", "product", &spec->requires_caps, nullptr); !s) return s;
  if (spec->keys != "none" && spec->keys != "x25519")
    return r.at(*root.get("keys"), "product: unknown key type '" + spec->keys + "'",
                "use keys = \"x25519\" or \"none\"");
  if (const toml::node* shapes = root.get("topology")) {
    if (auto s = get_string_list(r, root, "topology", "product", &spec->shapes, nullptr); !s) return s;
    for (const auto& shape : spec->shapes)
      if (shape != "p2p" && shape != "mesh" && shape != "hub" && shape != "site-to-site" && shape != "chain" &&
          shape != "relay")
        return r.at(*shapes, "product: unknown topology shape '" + shape + "'",
                    "use \"p2p\", \"hub\", \"mesh\", \"site-to-site\", \"chain\" or \"relay\"");
  }
  if (auto s = get_int(r, root, "max_mtu", "product", &spec->max_mtu, 576, 65535); !s) return s;
  if (auto s = get_int(r, root, "overhead", "product", &spec->overhead, 0, 1000); !s) return s;
  if (const toml::node* b = root.get("bringup_s")) {
    const auto v = b->value<double>();
    if (!v || *v < 0 || *v > 600)
      return r.at(*b, "product: bringup_s must be a number of seconds from 0 to 600",
                  "what its bring-up and stop took here, e.g. bringup_s = 6");
    spec->bringup_s = *v;
  }
  if (spec->interface.size() > 15)
    return r.at(*root.get("interface"),
                "product: interface name '" + spec->interface + "' is longer than 15 characters", "shorten it");

  if (auto s = parse_bringup(r, root, spec); !s) return s;
  return parse_checks(r, root, spec);
}

}  // namespace

namespace {

// "name@tag=/path/to/binary": the spec of `name`, shown as "name@tag", with its main
// binary (the first of `binaries`) replaced by the given one everywhere it is run.
Result<ProductSpec> load_variant(const std::string& products_dir, const std::string& text) {
  auto at = text.find('@');
  auto eq = text.find('=', at);
  std::string base = text.substr(0, at);
  std::string tag = eq == std::string::npos ? "" : text.substr(at + 1, eq - at - 1);
  std::string path = eq == std::string::npos ? "" : text.substr(eq + 1);
  if (!is_product_tag(tag) || path.empty() || path[0] != '/')
    return make_error("product '" + text + "' is not of the form NAME@TAG=/absolute/path/to/binary",
                      "e.g. --product nebula@new=/opt/nebula-1.9/nebula (TAG from [a-z0-9.-])");
  auto spec = load_product(products_dir, base);
  if (!spec) return spec;
  if (spec->binaries.empty())
    return make_error("product '" + base + "' names no binary to replace", "list it in binaries = [...]");
  if (auto s = check_program_file("product '" + text + "': " + path, path); !s) return s.error();
  replace_binary(&*spec, spec->binaries.front(), path);
  spec->name = base + "@" + tag;
  spec->origin = "your build: " + path;
  spec->not_built.clear();
  return spec;
}

// "name@version": the spec of `name` running its [[source]] build of that version.
Result<ProductSpec> load_build(const std::string& products_dir, const std::string& text) {
  const auto at = text.find('@');
  const std::string base = text.substr(0, at), version = text.substr(at + 1);
  auto spec = load_product(products_dir, base);
  if (!spec) return spec;
  std::string builds;
  for (const auto& src : spec->sources) {
    if (src.version != version) {
      builds += (builds.empty() ? "" : ", ") + base + "@" + src.version;
      continue;
    }
    spec->name = text;
    spec->not_built.clear();
    use_build(&*spec, src);  // not there: spec->not_built says so, and the product is unavailable
    return spec;
  }
  return make_error("product '" + base + "' has no build '" + version + "'",
                    builds.empty()
                        ? "its [[source]] tables list none; run your own with " + base + "@TAG=/path/to/binary"
                        : "its builds: " + builds + "; or your own with " + base + "@TAG=/path/to/binary");
}

}  // namespace

std::vector<std::string> split_products_path(const std::string& products_path) {
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= products_path.size()) {
    size_t end = products_path.find(':', start);
    if (end == std::string::npos) end = products_path.size();
    if (end > start) dirs.push_back(products_path.substr(start, end - start));
    start = end + 1;
  }
  return dirs;
}

Status check_program_file(const std::string& label, const std::string& path) {
  if (access(path.c_str(), X_OK) != 0) return make_error(label + " is not executable: " + errno_text(errno));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return make_error(label + " is not a program file (a directory?)", "give the path of the binary itself");
  return ok_status();
}

void replace_binary(ProductSpec* spec, const std::string& original, const std::string& path) {
  auto swap = [&](std::vector<std::string>& argv) {
    if (!argv.empty() && argv[0] == original) argv[0] = path;
  };
  for (auto& step : spec->steps) swap(step.argv);
  for (auto& p : spec->prepare) swap(p.argv);
  for (auto& svc : spec->services)
    for (auto& step : svc.steps) swap(step.argv);
  if (spec->path) swap(spec->path->argv);
  swap(spec->version_argv);
  if (spec->counters) swap(spec->counters->argv);
  for (auto& b : spec->binaries)
    if (b == original) b = path;
}

Result<ProductSpec> load_product(const std::string& products_path, const std::string& name) {
  if (const auto at = name.find('@'); at != std::string::npos)
    return name.find('=', at) == std::string::npos ? load_build(products_path, name)
                                                   : load_variant(products_path, name);
  const std::vector<std::string> dirs = split_products_path(products_path);
  ProductSpec spec;
  spec.name = name;
  Result<std::string> text = make_error("no products directory");
  std::string path;
  const bool plain_name = name.find('/') == std::string::npos && name != "." && name != "..";
  // A product's name becomes file and directory names of every run (raw/NAME/, logs/NAME/)
  // and is checked again when a run is read back: the topology's name rules, from the start.
  if (plain_name && !is_lab_name(name, kMaxProductLabel))
    return make_error("product name '" + name + "' is invalid: a product is named by its folder, from [a-z0-9-]",
                      "rename the folder (1 to " + std::to_string(kMaxProductLabel) +
                          " characters from [a-z0-9-], not starting with '-')");
  for (const auto& dir : dirs) {
    if (!plain_name) break;
    spec.dir = dir + "/" + name;
    path = spec.dir + "/product.toml";
    if ((text = read_input_file(path, kMaxTopologyBytes))) break;
  }
  if (!text) {
    auto known = list_products(products_path);
    std::string guess = closest_match(name, known);
    std::string all;
    for (const auto& k : known) all += (all.empty() ? "" : ", ") + k;
    std::string where = dirs.size() == 1 ? "no " + path : "in none of " + products_path;
    // Where else a product could have been: the directories that do not exist are not in
    // products_path, so the message names them.
    const std::string lookup =
        "; products are looked up in the shipped folder, each directory of $VPNLAB_PRODUCTS, then "
        "~/.config/vpnlab/products ('vpnlab product new' makes one there)";
    return make_error("unknown product '" + name + "' (" + where + ")",
                      (guess.empty() ? "known products: " + all : "did you mean '" + guess + "'?") + lookup);
  }
  return parse_product_text(std::move(spec), *text, path);
}

Result<ProductSpec> parse_product_text(ProductSpec spec, const std::string& text, const std::string& path) {
  TomlReader r(path);
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& err) {
    return r.at(SourcePos{static_cast<int>(err.source().begin.line), static_cast<int>(err.source().begin.column)},
                "not valid TOML: " + std::string(err.description()), "fix the syntax at this position");
  }
  if (auto s = parse_spec(r, root, &spec); !s) return s.error();
  if (spec.origin.empty())
    spec.origin = spec.packages.empty() ? "on this machine's PATH" : "Debian: " + spec.packages.front();
  for (const auto& src : spec.sources)
    if (src.is_default) use_build(&spec, src);
  return spec;
}

std::vector<std::string> list_products(const std::string& products_path) {
  std::vector<std::string> out;
  for (const auto& products_dir : split_products_path(products_path)) {
    DIR* dir = opendir(products_dir.c_str());
    if (!dir) continue;
    while (dirent* e = readdir(dir)) {
      std::string n = e->d_name;
      if (n[0] != '.' && access((products_dir + "/" + n + "/product.toml").c_str(), R_OK) == 0) out.push_back(n);
    }
    closedir(dir);
  }
  // A name in two directories is the first one's (load_product takes the first match).
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> list_products_and_builds(const std::string& products_path) {
  std::vector<std::string> out;
  for (const auto& name : list_products(products_path)) {
    out.push_back(name);
    if (auto spec = load_product(products_path, name))
      for (const auto& src : spec->sources)
        if (!src.is_default) out.push_back(name + "@" + src.version);
  }
  return out;
}

std::string overlay_shape(size_t node_count) { return node_count == 2 ? "p2p" : "mesh"; }

int carried_mtu(const ProductSpec& spec, int underlay_mtu) {
  if (!spec.tunnel) return underlay_mtu;
  return std::min(spec.max_mtu, underlay_mtu - spec.overhead);
}

}  // namespace vpnlab
