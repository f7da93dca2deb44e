// Products are data: products/<name>/product.toml plus config templates. This module
// reads a spec into plain structs; product_session.cpp carries it out on a topology.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/base/link_options.h"
#include "lab/base/result.h"
#include "lab/model/product_builds.h"

namespace vpnlab {

// Which nodes a step applies to: every node, only the first (e.g. the one side that
// initiates), all but the first, or only a native relay chain's relay (a relay server that
// runs there: Tailscale's DERP).
enum class NodeFilter { All, First, Others, Relays };
inline bool node_filter_applies(NodeFilter f, size_t node_index, bool relay) {
  if (f == NodeFilter::Relays) return relay;
  return f == NodeFilter::All || (f == NodeFilter::First) == (node_index == 0);
}

struct ProductStep {
  enum class Kind { Daemon, Run, WaitLink, Configure, CreateLink, Sysctl, WaitListen };
  Kind kind = Kind::Run;
  std::vector<std::string> argv;           // Daemon, Run (templated)
  std::map<std::string, std::string> env;  // Daemon, Run
  std::string ifname;                      // WaitLink, Configure, CreateLink (templated); WaitListen: the TCP port
  // Run: value name -> prefix of the output line that holds it ("" = all of it, trimmed), as
  // [[prepare]]'s capture: what a service's command prints (an auth key) for the nodes.
  std::vector<std::pair<std::string, std::string>> capture;
  std::string link_kind;                                     // CreateLink: the kernel link kind ("wireguard")
  std::vector<std::pair<std::string, std::string>> sysctls;  // Sysctl: /proc/sys keys under net/, in file order
  LinkOptions link;  // CreateLink: xfrm's if_id (policies match it); vxlan's vni, remote (templated), dstport
  double timeout_s = 10;
  double retry_s = 0;  // Run: run again while failing, for up to this long
  NodeFilter nodes = NodeFilter::All;
};

// The step kinds, one entry each: its key in [[step]] and what its value is: an argv
// (daemon, run), an interface name, or a table of values (sysctl). A new kind is an entry
// here, an executor in product_session.cpp's table and the NodeRuntime operation it needs.
struct StepKindDef {
  enum class Value { Argv, Name, Table };
  ProductStep::Kind kind;
  const char* key;
  Value value;
};
const std::vector<StepKindDef>& step_kinds();

// Done on the host before any node starts, entry by entry (each entry for every node
// before the next entry), so that later entries can use what earlier ones produced:
// rendering a config file, or running a key tool whose output lines become values.
struct PrepareStep {
  enum class Scope { Run, Node, Peer };  // once; per node; per (node, other node)
  Scope scope = Scope::Node;
  std::vector<std::string> argv;  // a command (templated), or:
  std::string file;               // a file to render (path relative to the node's directory, templated)
  std::string template_path;      // for messages
  std::string template_text;
  bool secret = false;  // the file holds private keys: goes below RUN/secrets/
  bool executable = false;
  // value name -> prefix of the output line that holds it ("" = the whole output, trimmed)
  std::vector<std::pair<std::string, std::string>> capture;
  NodeFilter nodes = NodeFilter::All;
};

// A run-scoped service the product needs (a control server: Tailscale's headscale), in a
// namespace of its own that reaches each VPN node over a control link of its own (never
// the measured underlay, which stays the same link every product gets). It starts before
// the nodes and stops after them, at every bring-up. Its steps' captured values and its
// address as each node reaches it are the nodes' {{NAME_VALUE}} and {{NAME_address}}.
struct ServiceSpec {
  std::string name;                  // [a-z0-9]: its node is "svc-NAME"
  std::vector<PrepareStep> prepare;  // [[service.file]]: rendered in its own directory
  std::vector<ProductStep> steps;    // [[service.step]]
};

// Proof, after every sample, that the tunnel's packets took the path the comparison is
// about (Tailscale: direct between the nodes, not through a relay): `argv` runs on the
// test's client node and must print `expect`, both templated with the server as the peer.
struct PathCheck {
  std::vector<std::string> argv;
  std::string expect;
  // What it must print instead between the ends of a native relay chain, with the relay's
  // values ({{relay_name}}, {{relay_overlay_address}}): the relay carried the packets.
  // Empty: that path is proven by the relay's own links alone.
  std::string relayed;
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
  std::string threads;
  bool offloads = true;  // false: TSO/GSO/GRO off on every underlay interface (baseline-nooffload)  // how its
                         // data-plane thread count is set ({{threads}} in its files), or why it is fixed
  std::vector<std::string> packages;
  std::vector<std::string> binaries;
  std::vector<std::string> version_argv;
  bool tunnel = true;  // false: the no-tunnel baseline
  // false: a tunnel run with its encryption off (easytier-plain): its payload must show on
  // the underlay, and its cipher starts with "none", so it stays out of the tunnels'
  // conclusion like the baseline.
  bool encrypted = true;
  std::string interface;
  std::string underlay_port;   // where its packets travel (templated; default "{{port}}")
  std::string relay_port;      // where a native relay chain's ends send them ("" = underlay_port): DERP's 3340
  std::string interface_kind;  // checked after bring-up when set: e.g. "wireguard", not a TUN
  std::vector<std::string> requires_caps;          // kernel features (see `vpnlab doctor`) it needs
  std::string keys = "none";                       // "x25519" or "none"
  std::vector<std::string> shapes{"p2p", "mesh"};  // overlay shapes it can carry
  int max_mtu = 65535;                             // largest overlay MTU the product carries at all
  int overhead = 0;                                // bytes its encapsulation adds per packet (IPv4 underlay)
  std::vector<PrepareStep> prepare;                // [[file]] entries come first, as node-scope files
  std::vector<ProductStep> steps;
  std::vector<ServiceSpec> services;  // [[service]]
  // Nodes start last to first (the first node is the side that initiates); "file": first to
  // last, for a control server that hands out addresses in the order nodes join.
  bool start_in_file_order = false;
  std::optional<PathCheck> path;  // [path]
  double ready_timeout_s = 10;
  // What a lab's bring-up and stop of it take on namespaces, in seconds (bringup_s), per
  // overlay (a chain's hop each is one): the plan's estimate of a run
  // (lab/model/plan_time.h), measured by bench/plan_bench.sh.
  double bringup_s = 0.2;
  std::optional<CounterSpec> counters;
  // Builds from a language registry ([[source]], lab/model/product_builds.h).
  std::vector<ProductSource> sources;
  // Where its binaries come from: "Debian: nebula", or the build's command and cache dir.
  std::string origin;
  // Why the build it runs is not there ("not built: ..."); empty when it is, or none is needed.
  std::string not_built;
  // The version of the registry build it runs: what `version` prints may lack it (a Go
  // module built without the project's ldflags prints "Version: ").
  std::string build_version;
};

// The overlay shape of a topology: "p2p" with two nodes, "mesh" with more (every node
// has every other as a peer).
std::string overlay_shape(size_t node_count);

// The largest overlay MTU the product carries over underlay links of `underlay_mtu`.
int carried_mtu(const ProductSpec& spec, int underlay_mtu);

// A build of your own given by path (NAME@TAG=PATH, product new --binary PATH): an
// executable regular file. `label` starts the message ("product 'nebula@new=/x': /x").
Status check_program_file(const std::string& label, const std::string& path);

// Runs `path` wherever the spec runs `original` (its steps, preparation, version and
// counters), and lists it among the binaries in its place.
void replace_binary(ProductSpec* spec, const std::string& original, const std::string& path);

// products_path: directories separated by ':' (as $PATH), searched in order; a name found
// in two of them is the first one's (see products_path()).
Result<ProductSpec> load_product(const std::string& products_path, const std::string& name);
// The text of `path` (spec.dir's product.toml) checked table by table; the templates it
// names are read from spec.dir. load_product's parse, and the product fuzz target's.
Result<ProductSpec> parse_product_text(ProductSpec spec, const std::string& text, const std::string& path);
std::vector<std::string> list_products(const std::string& products_path);
// Each product, then each registry build its plain name does not run ("nebula@1.9.5").
std::vector<std::string> list_products_and_builds(const std::string& products_path);
std::vector<std::string> split_products_path(const std::string& products_path);

}  // namespace vpnlab
