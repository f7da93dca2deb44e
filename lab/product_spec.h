// Products are data: products/<name>/product.toml plus config templates. This module
// reads a spec into plain structs; product_session.cpp carries it out on a topology.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lab/result.h"

namespace vpnlab {

struct ProductStep {
  enum class Kind { Daemon, Run, WaitLink, Configure };
  Kind kind = Kind::Run;
  std::vector<std::string> argv;           // Daemon, Run (templated)
  std::map<std::string, std::string> env;  // Daemon, Run
  std::string ifname;                      // WaitLink, Configure (templated)
  double timeout_s = 10;
};

struct ProductFile {
  std::string name;           // file name in the node's directory
  std::string template_path;  // for messages
  std::string template_text;
  bool secret = false;        // holds private keys: rendered into RUN/secrets/
};

// How to read the product's own per-peer transfer counters (the tunnel proof).
struct CounterSpec {
  std::vector<std::string> argv;
  int rx_field = 0;  // 1-based whitespace-separated fields, summed over lines
  int tx_field = 0;
};

struct ProductSpec {
  std::string name;
  std::string dir;
  std::string description;
  std::string cipher;
  std::vector<std::string> packages;
  std::vector<std::string> binaries;
  std::vector<std::string> version_argv;
  bool tunnel = true;  // false: the no-tunnel baseline
  std::string interface;
  std::string keys = "none";  // "x25519" or "none"
  std::vector<ProductFile> files;
  std::vector<ProductStep> steps;
  double ready_timeout_s = 10;
  std::optional<CounterSpec> counters;
};

// products_dir: where products/ lives (see find_products_dir()).
Result<ProductSpec> load_product(const std::string& products_dir, const std::string& name);
std::vector<std::string> list_products(const std::string& products_dir);

// $VPNLAB_PRODUCTS, else products/ next to the binary's source tree, else ./products.
std::string find_products_dir();

struct Availability {
  bool available = false;
  std::string reason;   // why not, naming the package to install
  std::string version;  // first line of the version command
};
Availability check_availability(const ProductSpec& spec);

}  // namespace vpnlab
