// Products built from a language registry (Go's module proxy, Rust's crate registry) at a
// pinned version into a versioned cache: a [[source]] table in product.toml per build, made
// by vpnlab products build into CACHE/products/NAME/VERSION/bin ("built" says how, or
// "failed" why not). `--product NAME@VERSION` runs a build with the product's own spec; a
// build marked default = true is what the plain name runs (a product not in Debian).
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"
#include "lab/model/toml_reader.h"

namespace vpnlab {

struct ProductSpec;

struct ProductSource {
  std::string version;                // its tag: --product NAME@VERSION
  std::string registry;               // "go" or "cargo"
  std::vector<std::string> packages;  // go: the module paths of its commands; cargo: the crate
  std::string module_version;         // go: when it is not "v" + version (a pseudo-version)
  bool is_default = false;            // the plain name runs this build
  // build = "easytier": this build is that product's, at the same version (one crate built
  // once, run by two specs: easytier and easytier-plain); "" = the product's own.
  std::string build_of;
  // rename = ["built=run-as"]: a command the build names otherwise than the product runs it.
  std::vector<std::string> renames;
  // build_s = 240: what the build took on a 2-vCPU machine from empty caches (shown before
  // building, and by `--product all` beside what is not built); 0 = not measured.
  int build_s = 0;
  // stamps = ["tailscale.com/version.longStamp=1.102.5"]: go only, strings the linker sets
  // (-ldflags "-X SYMBOL=VALUE"), as the product's own release build stamps its version; a
  // module built from the module cache has no VCS data to stamp it from.
  std::vector<std::string> stamps;
  // "-X a=1 -X b=2" ("" without stamps): one argument of go.
  std::string ldflags() const;
  // Whose cache directory holds it: build_of, else `product`.
  std::string owner(const std::string& product) const { return build_of.empty() ? product : build_of; }
  // The command that builds it: "go install MODULE@vVERSION ..." / "cargo install --locked --version V CRATE".
  std::string command() const;
  // The programs the build must leave in its bin/ (go: each command's name, renamed; cargo:
  // unknown before building, empty).
  std::vector<std::string> expected_binaries() const;
};

// ${VPNLAB_CACHE:-/var/cache/vpnlab}
std::string product_cache_root();
// ${VPNLAB_CACHE:-/var/cache/vpnlab}/products/NAME/VERSION
std::string product_build_dir(const std::string& product, const std::string& version);
// CACHE/products/NAME, opened through the trust rule (docs/trust.md): the cache and every
// directory above it owned by root or the caller and writable by nobody else, products/NAME
// below it plain directories (no link); made when missing if `create`.
Result<UniqueFd> open_product_dir(const std::string& product, bool create);

// Whether `source` is built for `product`: its "built" record is there and names the
// command it was built with. A build made by an older recipe (another command) is not:
// the next build makes it again.
bool build_is_there(const std::string& product, const ProductSource& source);

// [[source]] tables of product.toml into spec->sources.
Status parse_sources(const TomlReader& r, const toml::table& root, ProductSpec* spec);

// Runs `source`'s build: each of the spec's binaries that the build has is replaced by its
// cached path wherever it is run, and the origin names the build. When the build is not
// there, spec->not_built says why (its "failed" file, or that none was made yet).
void use_build(ProductSpec* spec, const ProductSource& source);

}  // namespace vpnlab
