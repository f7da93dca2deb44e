#include "lab/model/product_builds.h"

#include <unistd.h>

#include <cstdlib>

#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/base/trusted_dir.h"
#include "lab/model/names.h"
#include "lab/model/product_spec.h"

namespace vpnlab {

std::string ProductSource::ldflags() const {
  std::string out;
  for (const auto& stamp : stamps) out += (out.empty() ? "-X " : " -X ") + stamp;
  return out;
}

std::string ProductSource::command() const {
  if (registry == "cargo")
    return "cargo install --locked --version " + version + " " + (packages.empty() ? "" : packages.front());
  std::string out = "go install" + (stamps.empty() ? "" : " -ldflags='" + ldflags() + "'");
  // An entry with a version of its own ("...@v0.26.1") is a helper from another module.
  for (const auto& m : packages)
    out += " " + m +
           (m.find('@') != std::string::npos ? "" : "@" + (module_version.empty() ? "v" + version : module_version));
  return out;
}

std::vector<std::string> ProductSource::expected_binaries() const {
  std::vector<std::string> out;
  if (registry != "go") return out;
  for (const auto& p : packages) {
    const std::string path = p.substr(0, p.find('@'));
    std::string name = path.substr(path.rfind('/') + 1);
    for (const auto& pair : renames)
      if (pair.substr(0, pair.find('=')) == name) name = pair.substr(pair.find('=') + 1);
    out.push_back(name);
  }
  return out;
}

std::string product_cache_root() {
  const char* c = std::getenv("VPNLAB_CACHE");
  return c && *c ? c : "/var/cache/vpnlab";
}

std::string product_build_dir(const std::string& product, const std::string& version) {
  return product_cache_root() + "/products/" + product + "/" + version;
}

Result<UniqueFd> open_product_dir(const std::string& product, bool create) {
  if (!is_product_label(product) || product.find('@') != std::string::npos)
    return make_error("'" + product + "' is not a product name");
  auto root = open_trusted_dir(product_cache_root());
  if (!root) return root.error();
  return open_dir_below(root->get(), product_cache_root(), "products/" + product, create, 0755);
}

namespace {

// Why the build in `dir` is not to be run, or "": the cache, products/NAME/VERSION/bin below
// it and each program the spec runs from there pass the trust rule (docs/trust.md).
std::string distrust_build(const std::string& product, const std::string& version,
                           const std::vector<std::string>& binaries) {
  auto pdir = open_product_dir(product, /*create=*/false);
  if (!pdir) return pdir.error().message;
  const std::string shown = product_cache_root() + "/products/" + product;
  auto bin = open_dir_below(pdir->get(), shown, version + "/bin", /*create=*/false);
  if (!bin) return bin.error().message;
  for (const auto& binary : binaries)
    if (faccessat(bin->get(), binary.c_str(), X_OK, 0) == 0)
      if (auto s = check_trusted_file(bin->get(), shown + "/" + version + "/bin", binary); !s) return s.error().message;
  return "";
}

// Where the build comes from: go (one module path or several) or cargo (one crate), each an
// argument of go or cargo later.
Status read_packages(const TomlReader& r, const toml::table& t, const SourcePos& pos, ProductSource* src) {
  if (t.get("go") && t.get("cargo")) return r.at(pos, "source: both go and cargo", "a build comes from one registry");
  if (t.get("go")) {
    src->registry = "go";
    if (t.get("go")->is_string()) {
      src->packages = {t.get("go")->as_string()->get()};
    } else if (auto s = get_string_list(r, t, "go", "source", &src->packages, nullptr); !s) {
      return s;
    }
  } else if (t.get("cargo")) {
    src->registry = "cargo";
    std::string crate;
    if (auto s = get_string(r, t, "cargo", "source", &crate, true, pos); !s) return s;
    src->packages = {crate};
  } else {
    return r.at(pos, "source: where does the build come from?", "write go = [\"module/cmd/x\"] or cargo = \"crate\"");
  }
  if (src->packages.empty() || src->packages.front().empty())
    return r.at(pos, "source: no module or crate named", "name at least one");
  // Each becomes an argument of go or cargo: no option ('-'), nothing but a module path's characters.
  // A go entry may pin its own version ("module/cmd/x@v1.2.3": a helper from another module).
  for (const auto& p : src->packages)
    if (p.front() == '-' ||
        p.substr(0, p.find('@'))
                .find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~/-") !=
            std::string::npos ||
        (p.find('@') != std::string::npos &&
         (src->registry != "go" || p.compare(p.find('@'), 2, "@v") != 0 ||
          p.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-", p.find('@') + 2) !=
              std::string::npos)))
      return r.at(*t.get(src->registry), "source: '" + p + "' is not a module path or crate name",
                  "e.g. \"github.com/slackhq/nebula/cmd/nebula\"");
  return ok_status();
}

// The linker's version stamps and the programs renamed after the build.
Status read_stamps_and_renames(const TomlReader& r, const toml::table& t, ProductSource* src) {
  if (auto s = get_string_list(r, t, "stamps", "source", &src->stamps, nullptr); !s) return s;
  for (const auto& stamp : src->stamps) {
    const auto eq = stamp.find('=');
    // One argument of the linker each: a symbol's characters, then a version's; no space or quote.
    if (src->registry != "go" || eq == 0 || eq == std::string::npos ||
        stamp.substr(0, eq).find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") !=
            std::string::npos ||
        stamp.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-", eq + 1) !=
            std::string::npos)
      return r.at(*t.get("stamps"), "source: stamp '" + stamp + "' is not SYMBOL=VERSION of a go build",
                  "e.g. stamps = [\"tailscale.com/version.longStamp=1.102.5\"]");
  }
  std::vector<std::string>& renames = src->renames;
  if (auto s = get_string_list(r, t, "rename", "source", &renames, nullptr); !s) return s;
  for (const auto& pair : renames)
    if (auto eq = pair.find('=');
        eq == 0 || eq == std::string::npos || eq + 1 == pair.size() || pair.find('=', eq + 1) != std::string::npos ||
        pair.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-=") !=
            std::string::npos)
      return r.at(*t.get("rename"), "source: rename '" + pair + "' is not BUILT=RUN-AS",
                  "e.g. rename = [\"wireguard=wireguard-go\"]");
  return ok_status();
}

}  // namespace

bool build_is_there(const std::string& product, const ProductSource& source) {
  auto built = read_input_file(product_build_dir(product, source.version) + "/built", 64 * 1024);
  return built && built->rfind(source.command() + " in ", 0) == 0;
}

Status parse_sources(const TomlReader& r, const toml::table& root, ProductSpec* spec) {
  bool have_default = false;
  return for_each_table(r, root, "source", [&](const toml::table& t) -> Status {
    if (auto s = r.only_keys(
            t, "source",
            {"version", "go", "cargo", "module_version", "rename", "default", "build", "build_s", "stamps"});
        !s)
      return s;
    ProductSource src;
    const SourcePos pos = pos_of(t);
    if (auto s = get_string(r, t, "version", "source", &src.version, true, pos); !s) return s;
    if (!is_product_tag(src.version))
      return r.at(*t.get("version"), "source: version '" + src.version + "' is not a tag",
                  "write it from [a-z0-9.-], e.g. \"1.9.5\"");
    for (const auto& other : spec->sources)
      if (other.version == src.version)
        return r.at(*t.get("version"), "source: version '" + src.version + "' is there twice",
                    "give each build its own version");
    if (auto s = read_packages(r, t, pos, &src); !s) return s;
    if (auto s = get_string(r, t, "module_version", "source", &src.module_version, false, pos); !s) return s;
    if (!src.module_version.empty() &&
        (src.module_version.front() != 'v' ||
         src.module_version.find_first_not_of("v0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+-") !=
             std::string::npos))
      return r.at(*t.get("module_version"), "source: module_version '" + src.module_version + "' is not a Go version",
                  "e.g. \"v0.0.0-20260522210424-ecfc5a8d5446\"");
    if (auto s = get_bool(r, t, "default", "source", &src.is_default); !s) return s;
    if (auto s = get_string(r, t, "build", "source", &src.build_of, false, pos); !s) return s;
    if (!src.build_of.empty() &&
        src.build_of.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
      return r.at(*t.get("build"), "source: build '" + src.build_of + "' is not a product name",
                  "name the product whose build this is, e.g. \"easytier\"");
    if (auto s = get_int(r, t, "build_s", "source", &src.build_s, 0, 24 * 3600); !s) return s;
    if (auto s = read_stamps_and_renames(r, t, &src); !s) return s;
    if (src.is_default && have_default)
      return r.at(*t.get("default"), "source: a second default build", "mark one build default = true");
    have_default = have_default || src.is_default;
    spec->sources.push_back(std::move(src));
    return ok_status();
  });
}

void use_build(ProductSpec* spec, const ProductSource& source) {
  const std::string product = spec->name.substr(0, spec->name.find('@'));
  const std::string dir = product_build_dir(source.owner(product), source.version);
  if (!build_is_there(source.owner(product), source)) {
    // The build script's record, read bounded like any file vpnlab did not just write.
    auto failed = read_input_file(dir + "/failed", 64 * 1024);
    std::string why = failed ? *failed : "";
    if (auto nl = why.find('\n'); nl != std::string::npos) why.resize(nl);
    if (auto built = read_input_file(dir + "/built", 64 * 1024); built && why.empty())
      why = "built by another recipe than this spec's; 'vpnlab products build " + spec->name + "' makes it again (" +
            source.command() + ")";
    spec->not_built =
        "not built: " +
        (why.empty()
             ? "'vpnlab products build " + spec->name + "' makes it (" + source.command() +
                   (source.build_s > 0 ? ", about " + std::to_string((source.build_s + 59) / 60) + " min on 2 vCPUs"
                                       : "") +
                   ")"
             : why);
    spec->origin = source.command();
    return;
  }
  const std::vector<std::string> binaries = spec->binaries;  // a copy: replace_binary changes the list
  // A cache another user can change is never run from (a planted build would run as root).
  if (std::string why = distrust_build(source.owner(product), source.version, binaries); !why.empty()) {
    spec->not_built = "not trusted: " + why;
    spec->origin = source.command();
    return;
  }
  for (const auto& binary : binaries) {
    const std::string cached = dir + "/bin/" + binary;
    if (access(cached.c_str(), X_OK) == 0) replace_binary(spec, binary, cached);
  }
  spec->origin = source.command() + " (" + dir + ")";
  spec->build_version = source.version;
}

}  // namespace vpnlab
