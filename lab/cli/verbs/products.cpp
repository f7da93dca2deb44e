// `vpnlab products [build ...]`: the products with availability, cipher and version; the
// registry builds made where missing.
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "lab/app/product_build.h"
#include "lab/app/run_request.h"
#include "lab/base/fs_util.h"
#include "lab/base/terminal_text.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"
#include "lab/model/install_layout.h"
#include "lab/model/product_spec.h"
#include "lab/record/results_csv.h"
#include "lab/run/interrupt.h"

namespace vpnlab {
namespace {

// `products build NAME[@VERSION]...|all`: the registry builds, made where missing.
int cmd_products_build(const Args& a) {
  std::vector<std::string> names(a.positional.begin() + 1, a.positional.end());
  if (names.empty()) return usage_error("products", "products build: name the builds (NAME, NAME@VERSION) or 'all'");
  auto builds = registry_builds_named(shipped_dir(own_binary_dir()) + "/products", names);
  if (!builds) return fail(builds.error());
  if (!need_root("products build")) return kExitError;
  const int interrupt = install_interrupt_handlers();
  int failed = 0;
  for (const auto& b : *builds) {
    if (interrupted()) break;
    if (auto s = make_registry_build(b, std::cerr, interrupt); !s) {
      std::cerr << s.error().format() << "\n";
      ++failed;
    }
  }
  if (interrupted()) return kExitInterrupted;
  if (failed) std::cerr << "vpnlab: " << failed << " of " << builds->size() << " builds failed; the others are built\n";
  return failed ? kExitError : 0;
}

// Text: one product per line, tab-separated, the only field that may hold spaces (version
// or reason) last, so `cut -f` and `awk -F'\t'` read it.
int cmd_products(const Args& a) {
  if (!a.positional.empty() && a.positional[0] == "build") return cmd_products_build(a);
  if (!a.positional.empty())
    return usage_error("products", "'" + a.positional[0] + "' is not a products command (products, products build)");
  std::string dir = products_path(own_binary_dir());
  nlohmann::json all = nlohmann::json::array();
  if (!a.json) std::cout << "NAME\tSTATUS\tCIPHER\tVERSION OR REASON\n";
  for (const auto& name : list_products_and_builds(dir)) {
    auto spec = load_product(dir, name);
    std::optional<Availability> av;
    if (spec) av = availability_for(spec.value(), "netns");
    if (a.json) {
      all.push_back(product_json(name, spec, av));
    } else if (!spec) {
      std::cout << name << "\tinvalid\t-\t" << one_line(spec.error().where_and_what()) << "\n";
    } else {
      // The version is what the product's binary printed: no control character passes.
      std::cout << name << "\t" << (av->available ? "available" : "unavailable") << "\t"
                << (spec->cipher.empty() ? "-" : spec->cipher) << "\t"
                << terminal_safe(one_line(av->available ? av->version + " (" + spec->origin + ")" : av->reason))
                << "\n";
    }
  }
  if (a.json) std::cout << products_listing_json(dir, all).dump(2) << "\n";
  return 0;
}

}  // namespace

extern const Verb kProductsVerb = {
    "products",
    "products [--json] | products build NAME[@VERSION]...|all",
    "Lists the products with availability, cipher and version (tab-separated; the reason a product cannot run\n"
    "in place of its version). Looked up in order: the shipped products (PREFIX/share/vpnlab/products, or the source\n"
    "tree), each directory of $VPNLAB_PRODUCTS (':'-separated), ~/.config/vpnlab/products; the first of a name wins.\n"
    "'build': makes the shipped products' registry builds (go install / cargo install at the pinned version) into\n"
    "$VPNLAB_CACHE/products (default /var/cache/vpnlab); NAME builds all of NAME's, 'all' every one; a build there\n"
    "already is kept. 'run' builds a product it is asked for that is not built yet (unless --no-build).",
    {"--json"},
    cmd_products};

}  // namespace vpnlab
