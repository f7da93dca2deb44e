#include "lab/backends/vm/image.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lab/base/encoding.h"
#include "lab/base/fs_util.h"
#include "lab/model/toml_reader.h"

namespace fs = std::filesystem;

namespace vpnlab {

Result<ImageRecipe> parse_recipe_text(const std::string& text, const std::string& file) {
  TomlReader r(file);
  toml::table t;
  try {
    t = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    return r.at(SourcePos{static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column)},
                std::string(e.description()), "fix the TOML syntax");
  }
  ImageRecipe rc;
  rc.file = file;
  rc.dir = fs::path(file).parent_path().string();
  if (auto s = r.only_keys(t, "image recipe", {"image", "kernel", "initramfs", "rootfs"}); !s) return s.error();
  const std::pair<const char*, std::vector<std::string>> known[] = {
      {"image", {"name", "root"}},
      {"kernel", {"package"}},
      {"initramfs", {"busybox", "init", "modules", "module_dirs"}},
      {"rootfs", {"suite", "variant", "packages"}}};
  for (const auto& [table, keys] : known)
    if (const toml::table* tt = t[table].as_table())
      if (auto s = r.only_keys(*tt, table, keys); !s) return s.error();
  auto str = [&](const char* table, const char* key, std::string* out) -> Status {
    const toml::table* tt = t[table].as_table();
    auto v = tt ? (*tt)[key].value<std::string>() : std::nullopt;
    if (!v)
      return r.at(tt ? pos_of(*tt) : SourcePos{1, 1}, std::string("[") + table + "] needs " + key + " (a string)",
                  "see images/debian12.toml");
    *out = *v;
    return ok_status();
  };
  auto list = [&](const char* table, const char* key, std::vector<std::string>* out) -> Status {
    const toml::table* tt = t[table].as_table();
    const toml::array* a = tt ? (*tt)[key].as_array() : nullptr;
    if (!a)
      return r.at(tt ? pos_of(*tt) : SourcePos{1, 1},
                  std::string("[") + table + "] needs " + key + " (a list of strings)", "see images/debian12.toml");
    for (auto&& e : *a) {
      auto v = e.value<std::string>();
      if (!v) return r.at(e, std::string(key) + ": every entry must be a string", "quote it");
      out->push_back(*v);
    }
    return ok_status();
  };
  for (auto s :
       {str("image", "name", &rc.name), str("image", "root", &rc.root), str("kernel", "package", &rc.kernel_package),
        str("initramfs", "busybox", &rc.busybox), str("initramfs", "init", &rc.init),
        list("initramfs", "modules", &rc.modules), list("initramfs", "module_dirs", &rc.module_dirs)})
    if (!s) return s.error();
  if (rc.root == "mmdebstrap") {
    for (auto s : {str("rootfs", "suite", &rc.suite), str("rootfs", "variant", &rc.variant),
                   list("rootfs", "packages", &rc.packages)})
      if (!s) return s.error();
  } else if (rc.root != "host-9p") {
    return r.at(
        pos_of(*t["image"]["root"].node()), "image: unknown root '" + rc.root + "'",
        "use root = \"host-9p\" (the host's root, read-only) or \"mmdebstrap\" (a root built from [rootfs] packages)");
  }
  rc.init = (fs::path(rc.dir) / rc.init).string();
  return rc;
}

Result<ImageRecipe> load_recipe(const std::string& path) {
  std::string text = read_file_text(path);
  if (text.empty()) return make_error("cannot read image recipe " + path, "images/debian12.toml is the default recipe");
  return parse_recipe_text(text, path);
}

// Module names treat '-' and '_' alike (virtio-rng.ko is "virtio_rng"), as modprobe does.
static std::string module_name(std::string n) {
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

Result<std::vector<std::string>> module_load_order(const std::string& modules_dep,
                                                   const std::vector<std::string>& wanted) {
  std::map<std::string, std::vector<std::string>> deps;  // path -> deps as listed
  std::map<std::string, std::string> by_name;            // "virtio_net" -> path
  std::istringstream in(modules_dep);
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string path = line.substr(0, colon);
    std::istringstream rest(line.substr(colon + 1));
    std::vector<std::string> d;
    for (std::string p; rest >> p;) d.push_back(p);
    deps[path] = d;
    std::string base = fs::path(path).filename().string();
    by_name[module_name(base.substr(0, base.find(".ko")))] = path;
  }
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (const auto& name : wanted) {
    auto it = by_name.find(module_name(name));
    if (it == by_name.end())
      return make_error("module '" + name + "' is not in the kernel's modules.dep",
                        "it may be built in (nothing to load: remove it from the recipe) or misspelled");
    // modules.dep lists every dependency, transitively, to be loaded from the last one back.
    const auto& d = deps[it->second];
    for (auto p = d.rbegin(); p != d.rend(); ++p)
      if (seen.insert(*p).second) order.push_back(*p);
    if (seen.insert(it->second).second) order.push_back(it->second);
  }
  return order;
}

std::string initramfs_init(const std::string& init_text) {
  if (init_text.empty() || init_text.rfind("#!", 0) == 0) return init_text;
  return "#!/bin/busybox sh\n" + init_text;
}

std::string image_key(const std::string& recipe_text, const std::string& init_text, const std::string& kernel_deb,
                      const std::string& busybox_bytes) {
  std::string all;
  for (const std::string* part : {&recipe_text, &init_text, &kernel_deb, &busybox_bytes}) {
    uint64_t n = part->size();  // length-prefixed: parts cannot run into each other
    all.append(reinterpret_cast<const char*>(&n), sizeof n);
    all += *part;
  }
  return sha256_hex(all);
}

std::string image_cache_root() {
  const char* c = std::getenv("VPNLAB_CACHE");
  return c && *c ? c : "/var/cache/vpnlab";
}

}  // namespace vpnlab
