// Registry builds on demand: `vpnlab products build NAME[@VERSION]...|all` makes the [[source]]
// builds of the shipped products (Go module proxy, Rust crate registry, each at its pinned
// version, with the registry's own client) into the versioned cache
// ${VPNLAB_CACHE:-/var/cache/vpnlab}/products/NAME/VERSION; `run` calls the same code for a
// product it is asked for that is not built yet. A build there already is not made again.
// Only the products shipped with vpnlab are built: a crate's build scripts run as it builds,
// so what is built is what vpnlab's tree pins and reviews (a user's product folder can name
// a build, never have vpnlab build it).
#pragma once
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/model/product_builds.h"

namespace vpnlab {

struct RegistryBuild {
  std::string product;  // whose cache directory holds it (ProductSource::owner)
  std::string label;    // as the user names it: "nebula@1.9.5", "easytier"
  ProductSource source;
};

// The builds that `names` ask for, in the shipped products folder `shipped_products`: "all"
// every build of every product; NAME every build NAME lists; NAME@VERSION that one. One
// build serving two products (easytier-plain's is easytier's) is listed once.
Result<std::vector<RegistryBuild>> registry_builds_named(const std::string& shipped_products,
                                                         const std::vector<std::string>& names);

// What a registry client runs with: the part of the caller's environment it needs (proxy,
// certificates, Go's and Cargo's own settings; never another tool's token), the PATH that finds
// go and cargo without a login shell, the machine's own Go toolchain (never one fetched
// because a module asks for a newer one), no VCS stamping (a module cache has no .git), and
// GOBIN = `bindir` when given. Its build log's LOG.cmd names these variables, never their values.
std::map<std::string, std::string> registry_client_env(const std::string& bindir);

// What a build took last time on this machine (its record in the cache), else the figure
// its product.toml gives (build_s, measured on a 2-vCPU machine); 0 when neither is known.
int expected_build_seconds(const RegistryBuild& b);
// "about 4 min" / "about 35 s" / "time not known", for messages.
std::string build_time_text(int seconds);

// Makes one build unless it is there with its binaries, printing a line as it starts, one
// a minute while it runs and one when it ends. The interrupt fd (Ctrl-C) stops the build's
// client and leaves no "built" record. Errors name the product, version, command and log.
Status make_registry_build(const RegistryBuild& b, std::ostream& progress, int interrupt_fd);

// Before a run: each of `products` (as the plan names them) that runs a registry build not
// made yet is built, saying so; with no_build it is an error naming the command instead.
// Returns how many were built (the caller plans again to pick them up).
Result<int> build_products_for_run(const std::vector<std::string>& products, const std::string& products_path,
                                   const std::string& shipped_products, bool no_build, std::ostream& progress,
                                   int interrupt_fd);

}  // namespace vpnlab
