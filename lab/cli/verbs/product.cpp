// `vpnlab product new NAME --from PRODUCT --binary PATH`: your build as a product
// (lab/cli/verbs/product.h).
#include "lab/cli/verbs/product.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <toml++/toml.h>

#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/base/trusted_dir.h"
#include "lab/cli/verbs/verb.h"
#include "lab/model/install_layout.h"
#include "lab/model/names.h"
#include "lab/model/product_spec.h"

namespace vpnlab {

namespace {

constexpr uint64_t kMaxProductFileBytes = 1 << 20;

// Every argv in the spec whose program is `original` runs `path` instead.
void point_argvs_at(toml::table& root, const std::string& original, const std::string& path) {
  auto swap = [&](toml::node* n) {
    if (auto* argv = n ? n->as_array() : nullptr; argv && !argv->empty())
      if (auto* first = argv->get(0)->as_string(); first && first->get() == original) *first = path;
  };
  swap(root.get("version"));
  auto steps_of = [&](toml::table& holder) {
    for (const char* section : {"step", "prepare"})
      if (auto* items = holder.get(section) ? holder.get(section)->as_array() : nullptr)
        for (auto& item : *items)
          if (auto* t = item.as_table())
            for (const char* key : {"daemon", "run"}) swap(t->get(key));
  };
  steps_of(root);
  // A [[service]]'s steps run the product's helpers too (Tailscale's headscale).
  if (auto* services = root.get("service") ? root.get("service")->as_array() : nullptr)
    for (auto& service : *services)
      if (auto* t = service.as_table()) steps_of(*t);
  if (auto* counters = root.get("counters") ? root.get("counters")->as_table() : nullptr) swap(counters->get("argv"));
}

Status check_binary(const std::string& binary) {
  if (binary.empty() || binary[0] != '/')
    return make_error("--binary '" + binary + "' is not an absolute path", "give the full path of your build");
  return check_program_file("--binary " + binary, binary);
}

// BASE's files beside product.toml (its templates), regular files only.
Status copy_templates(const std::string& from, const std::string& to) {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(from.c_str()), closedir);
  if (!dir) return make_error("cannot read " + from + ": " + errno_text(errno));
  while (dirent* e = readdir(dir.get())) {
    const std::string n = e->d_name;
    struct stat st {};
    if (n == "product.toml" || lstat((from + "/" + n).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    auto text = read_input_file(from + "/" + n, kMaxProductFileBytes);
    if (!text) return text.error();
    if (auto s = write_file(to + "/" + n, *text, st.st_mode & 0755); !s) return s;
  }
  return ok_status();
}

}  // namespace

std::string user_products_dir() {
  if (const char* env = std::getenv("VPNLAB_PRODUCTS"); env && *env) {
    auto dirs = split_products_path(env);
    if (!dirs.empty()) return dirs.front();
  }
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/root") + "/.config/vpnlab/products";
}

Result<std::string> new_product(const std::string& products_path, const std::string& into, const std::string& name,
                                const std::string& base, const std::string& binary) {
  if (!is_lab_name(name, kMaxProductLabel))
    return make_error("product name '" + name + "' is invalid",
                      "1 to " + std::to_string(kMaxProductLabel) + " characters from [a-z0-9-], not starting with '-'");
  if (auto taken = load_product(products_path, name); taken || taken.error().message.rfind("unknown product", 0) != 0)
    return make_error("a product '" + name + "' exists already" + (taken ? " (" + taken->dir + ")" : ""),
                      "choose another name");
  auto spec = load_product(products_path, base);
  if (!spec) return with_context(spec.error(), "--from " + base);
  if (spec->binaries.empty())
    return make_error("product '" + base + "' names no binary to replace",
                      "choose a product that runs a program of its own");
  if (auto s = check_binary(binary); !s) return s.error();
  auto text = read_input_file(spec->dir + "/product.toml", kMaxProductFileBytes);
  if (!text) return text.error();
  toml::table root = toml::parse(*text, spec->dir + "/product.toml");  // it loaded: it parses
  const std::string original = root["binaries"][0].value_or(std::string());
  root.insert_or_assign("name", name);
  root.insert_or_assign("description", spec->description + " (your build: " + binary + ")");
  root.insert_or_assign("origin", "your build: " + binary);
  root.erase("source");  // the registry's builds are the base's, not yours
  if (auto* bins = root.get("binaries") ? root.get("binaries")->as_array() : nullptr) {
    if (auto* first = bins->get(0)->as_string()) *first = binary;
    // The base's other programs (Tailscale's CLI and headscale) may come from its registry
    // build: the new product runs them from there, by path, since it has no build of its own.
    if (!spec->not_built.empty() && bins->size() > 1)
      return make_error(
          "--from " + base +
              ": its registry build is not made yet, and your product would run its other programs from there",
          "run 'vpnlab products build " + base + "' first");
    for (size_t i = 1; i < bins->size() && i < spec->binaries.size(); ++i)
      if (auto* name = bins->get(i)->as_string();
          name && spec->binaries[i].front() == '/' && name->get() != spec->binaries[i]) {
        const std::string was = name->get();
        *name = spec->binaries[i];
        point_argvs_at(root, was, spec->binaries[i]);
      }
  }
  point_argvs_at(root, original, binary);

  const std::string dest = into + "/" + name;
  if (access(dest.c_str(), F_OK) == 0) return make_error(dest + " exists already", "remove it or choose another name");
  if (auto s = make_dirs(dest, 0755); !s) return s.error();
  auto undo = [&](Error e) {
    (void)remove_tree(dest);
    return e;
  };
  std::ostringstream out;
  out << "# Made by 'vpnlab product new " << name << " --from " << base << " --binary " << binary << "' from "
      << spec->dir << "\n# (its templates are copies). Edit freely: products/README.md has the format.\n"
      << root << "\n";
  if (auto s = write_file(dest + "/product.toml", out.str(), 0644); !s) return undo(s.error());
  if (auto s = copy_templates(spec->dir, dest); !s) return undo(s.error());
  if (auto check = load_product(into, name); !check)
    return undo(with_context(check.error(), "the new product does not load"));
  return dest;
}

namespace {

// The options only `product new` takes (--from is shared with run and plan).
struct ProductOptions {
  std::string binary;  // --binary PATH
};

const std::vector<Option<ProductOptions>> kProductOptions = {
    {"--binary", "PATH",
     "product new: your build (an absolute path), run where the --from product runs its main binary",
     set_text<&ProductOptions::binary>},
};

}  // namespace

int cmd_product(const Args& a) {
  ProductOptions own;
  if (auto code = parse_own("product", kProductOptions, a, &own)) return *code;
  if (a.positional.size() != 2 || a.positional[0] != "new")
    return usage_error("product", "expected 'product new NAME --from PRODUCT --binary /path/to/your/build'");
  if (a.from_dir.empty() || own.binary.empty())
    return usage_error("product", "'product new' needs --from PRODUCT and --binary PATH");
  const std::string into = user_products_dir();
  auto dest = new_product(products_path(own_binary_dir()), into, a.positional[1], a.from_dir, own.binary);
  if (!dest) return fail(dest.error());
  std::cout << "product '" << a.positional[1] << "' written to " << *dest << " (from '" << a.from_dir << "', running "
            << own.binary << ")\nrun it: vpnlab run topologies/quick.toml --product " << a.positional[1] << "\n";
  return 0;
}

extern const Verb kProductVerb = {
    "product",
    "product new NAME --from PRODUCT --binary /path/to/your/build",
    "Writes a product folder NAME under the first directory of $VPNLAB_PRODUCTS, else ~/.config/vpnlab/products: "
    "PRODUCT's\n"
    "spec and templates, running your build where PRODUCT runs its main binary (its first 'binaries' entry). Then\n"
    "'vpnlab run FILE --product NAME' measures it like any product.",
    {"--from", "--binary"},
    cmd_product,
    {},
    [](const std::vector<std::string>& p) { return first_word_of(p, {"new"}); },
    own_options(kProductOptions)};

}  // namespace vpnlab
