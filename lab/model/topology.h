// The topology file's model: plain structs filled from TOML, with the source position of
// every object so that later validation can point at the right line.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/base/ipv4.h"
#include "lab/base/result.h"
#include "lab/model/backend_traits.h"
#include "lab/model/test_kinds.h"

namespace vpnlab {

// The largest payloads that fit an overlay MTU: IPv4 + UDP headers take 28 bytes, IPv4 +
// TCP 40. Every check and default of a test's packet size uses these.
inline int max_udp_payload(int overlay_mtu) { return overlay_mtu - 28; }

inline int max_tcp_mss(int overlay_mtu) { return overlay_mtu - 40; }

inline constexpr size_t kMaxLabName = 12;  // goes into namespace names

struct NodeSpec {
  std::string name;
  std::string host;  // backend "hosts": the [[host]] this node lives on
  SourcePos host_pos;
  std::vector<int> cpus;               // VPN data-plane CPUs
  std::vector<int> load_cpus;          // iperf3 CPUs
  std::optional<std::string> gateway;  // routed: reaches the overlay through this VPN node
  SourcePos gateway_pos;
  SourcePos pos;
};

// [[chain]]: VPN nodes in order along a path; each neighbouring pair is one hop with its
// own tunnel (its own interface, port and /29 of the overlay subnet), and a relay forwards
// what one hop's tunnel delivers into the next (multi-hop, lab/model/plan_chain.cpp).
// relay = "native": one tunnel from end to end that the product itself relays through the
// middle node (Nebula's relays), which the ends cannot reach past on the underlay.
struct ChainSpec {
  std::string name;
  std::vector<std::string> nodes;
  bool native_relay = false;
  SourcePos pos, nodes_pos;
};

struct LinkSpec {
  std::string name;
  std::vector<std::string> nodes;
  Ipv4Prefix subnet;
  std::optional<int> mtu;
  double rate_bps = 0;                               // 0: unshaped; otherwise a TBF on every end
  double delay_ms = 0, jitter_ms = 0, loss_pct = 0;  // netem, where the kernel has it
  std::string profile;   // profile = "wan-20ms": where delay, jitter and loss came from (impairment_profiles.h)
  bool reorder = false;  // reorder = true: jittered packets may overtake each other (netem's own queue)
  // neighbours = "static": every node on the (bridged) link gets a permanent ARP entry for
  // every other one (lab/kernel/neighbour.h: learned ones overflow the kernel's shared table in
  // large meshes); default "learned".
  bool static_neighbours = false;
  SourcePos pos;
  SourcePos shaping_pos;  // of the first shaping key, for errors found at run time
  SourcePos nodes_pos;
};

// A machine of the hosts backend, reached over SSH (lab/model/hosts_section.cpp).
struct HostSpec {
  std::string name;
  std::string ssh;                       // an OpenSSH destination ("root@h1", "root@192.0.2.10")
  std::vector<std::string> ssh_options;  // extra ssh argv before the destination (no shell)
  std::string nic;                       // the interface that carries links to other hosts
  std::string agent;                     // vpnlab-host-agent's path there ("" = where this vpnlab has its own)
  // How its host key is trusted: "TYPE KEY" pinned, "accept-new" (the first key seen, kept
  // in vpnlab's own known-hosts file), or "" (that file as it is, or known_hosts below).
  std::string host_key;
  std::string known_hosts;  // a known-hosts file vpnlab reads (absolute; relative in the file = to its folder)
  SourcePos pos;
};

struct TestSpec {
  std::string name;
  // What it measures (lab/model/test_kinds.h). throughput: iperf3 bulk transfer; rr:
  // request/response over one TCP connection (vpnlab-crr rr); crr: a new TCP connection
  // per request/response (vpnlab-crr); latency: idle round trips, ICMP echoes every 10 ms.
  std::string kind = "throughput";
  int size = kMinTransactionBytes;  // rr/crr: request and response bytes each
  std::string client;
  std::vector<std::string> servers;
  int streams = 1;
  bool reverse = false;
  std::optional<int> mss;
  bool bidirectional = false;  // both directions at once (iperf3 --bidir)
  bool udp = false;
  double bitrate_bps = 0;  // total offered load of the test (0: iperf3's TCP default)
  int length = 0;          // UDP payload bytes (0: overlay MTU - 28)
  // UDP: the highest offered rate (up to bitrate) whose loss stays <= max_loss_pct, by
  // bisection in `steps` trials of duration / steps each (RFC 2544's throughput search).
  bool zero_loss = false;
  double max_loss_pct = 0;
  int steps = 6;
  // A point of a sweep (lab/model/sweep.h): the test it belongs to and its value on each
  // swept axis, in the file's order ({"streams", "8"}); empty for a test that is not swept.
  std::string sweep_of;
  std::vector<std::pair<std::string, std::string>> point;
  int lab_point = -1;  // a point of the [bench] sweep (BenchSpec::lab_points); -1: there is none
  SourcePos pos;
  SourcePos length_pos;
};

// A point of the [bench] sweep: the lab itself changed for every test and product
// (lab/model/sweep.h), rebuilt between points as between products.
struct LabPoint {
  std::vector<std::pair<std::string, std::string>> values;  // {"underlay_mtu", "9000"}
  int underlay_mtu = 0;                                     // every link's MTU at this point (0: as the file says)
  int overlay_mtu = 0;         // the overlay's, once the CLI resolved it for the point (0: the plan's)
  double rate_bps = 0;         // every shaped link's rate (0: as the file says)
  std::optional<int> threads;  // data-plane threads of every product ([bench] threads)
  std::string variant;         // a [[variant]]'s name ("" or "none": no variant)
};

// [[variant]]: a setup applied to every VPN node once the lab is built and before any
// product starts (the baseline's too), so "the same comparison with and without X" is one
// run: `[bench] sweep = { variant = ["none", "conntrack"] }` (lab/model/variant_section.cpp).
struct VariantSpec {
  std::string name;
  std::string nft;  // an nftables ruleset for the node's namespace (nft -f syntax); "" none
  std::vector<std::pair<std::string, std::string>> sysctls;  // /proc/sys keys under net/
  std::optional<bool> offloads;                              // TSO/GSO/GRO of every underlay link, on or off
  std::string qdisc;  // the root qdisc of every underlay link ("fq", "fq_codel", ...); "" as the lab sets it
  SourcePos pos, nft_pos;
};
inline constexpr size_t kMaxVariantRules = 64 * 1024;  // bytes of one variant's nft text

// What a [bench] that sets no samples, duration or precision gets: adaptive sampling to
// ±5 % within 5 minutes, 3 s samples after 1 s of warm-up (bench/precision_bench found 3 s
// the narrowest interval per minute here), at most 10 rounds; `--samples N` still measures
// a fixed N.
inline constexpr double kDefaultPrecision = 0.05;
inline constexpr double kDefaultMaxTimeS = 300;
inline constexpr double kDefaultDurationS = 3;
inline constexpr double kDefaultWarmupS = 1;

struct BenchSpec {
  std::vector<std::string> products{"baseline"};
  SourcePos products_pos;
  int samples = 10;
  double duration_s = 10;
  double warmup_s = 2;
  // Adaptive sampling by default: rounds go on until each ratio to its reference is known
  // to this precision, within max_time_s (0: no budget); `samples` is then the round limit.
  std::optional<double> precision;
  double max_time_s = 0;
  // The file set none of samples, duration and precision: vpnlab's own defaults, the
  // everyday flow quick.toml has (kDefault* below), not a fixed 10 x 10 s.
  bool adaptive_by_default = false;
  std::optional<int> threads;  // data-plane threads for every product alike
  bool interleave = true;      // rounds of A B C instead of all of A, then all of B
  bool rps = true;             // receive packet steering to each node's cpus (when pinned)
  std::vector<TestSpec> tests;
  // [bench] sweep = { underlay_mtu = [...] }: every test at every point (empty: none).
  std::vector<LabPoint> lab_points;
  SourcePos lab_sweep_pos;
};

struct Topology {
  std::string file;  // as given by the user, for messages
  std::string lab_name;
  std::string backend = "netns";
  std::string image;  // vm: a recipe in images/ ("debian12-rootfs") or a path; empty: debian12
  Ipv4Prefix overlay_subnet;
  int overlay_mtu = 1400;  // 0 = "auto", resolved once the products are known
  int overlay_port = 51820;
  std::vector<std::string> vpn_nodes;  // nodes that run the VPN; empty = all
  SourcePos vpn_nodes_pos;
  std::vector<HostSpec> hosts;  // [[host]]: used by backend "hosts", ignored by the others
  std::vector<NodeSpec> nodes;
  std::vector<LinkSpec> links;
  std::vector<ChainSpec> chains;      // [[chain]]: their nodes are the VPN nodes
  std::vector<VariantSpec> variants;  // [[variant]]: applied where the [bench] sweep says
  BenchSpec bench;
};

// Parses and validates a topology. Every error names file:line:column and carries a hint.
Result<Topology> parse_topology_text(const std::string& text, const std::string& file);
Result<Topology> load_topology(const std::string& path);

}  // namespace vpnlab
