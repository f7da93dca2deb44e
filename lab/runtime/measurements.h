// What a node measures, as plain types the runner reads and every backend fills: the
// kernel layer (lab/kernel/) on this host, the agents' answers in guests and on hosts. They live
// here, below the kernel layer, so that the runner sees measurements and never the kernel.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vpnlab {

// An interface as the node sees it.
struct LinkInfo {
  std::string name;
  std::string kind;  // "veth", "bridge", "tun", "" for loopback/unknown
  int mtu = 0;
  bool up = false;
  uint64_t rx_bytes = 0, tx_bytes = 0, rx_packets = 0, tx_packets = 0;
};

// Latency under load: echoes at a fixed interval while a sample runs.
class LatencyProbe {
 public:
  struct Summary {
    int sent = 0, answered = 0;
    int reordered = 0;  // answers that came after an answer to a later echo
    double p50_ms = 0, p99_ms = 0, max_ms = 0;
    std::vector<double> rtts_ms;  // every answered probe's round trip, in the order the answers came
  };
  virtual ~LatencyProbe() = default;
  // Idempotent.
  virtual Summary stop() = 0;

  // Nearest-rank quantile (q in (0, 1]) of unsorted values; 0 for none.
  static double quantile(std::vector<double> values, double q);
};

// A watch of one interface's frames for a byte pattern: the proof that an encrypted tunnel
// does not carry the payload in clear on the underlay.
class PayloadWatch {
 public:
  struct Summary {
    uint64_t frames = 0;
    uint64_t bytes = 0;
    uint64_t ipv4_bytes = 0;  // all IPv4 frames
    uint64_t port_bytes = 0;  // IPv4 UDP/TCP frames from or to the port
    uint64_t drops = 0;       // frames the kernel could not queue for us (a lossy sample)
    bool pattern_seen = false;
  };
  virtual ~PayloadWatch() = default;
  // Stops the watch and says what it saw.
  virtual Summary stop() = 0;
};

// iperf3 --repeating-payload fills its buffers with "0123456789" repeated; 40 bytes of
// it cannot appear by chance in ciphertext.
std::string iperf_repeating_pattern(size_t length = 40);

// A mesh's echo sweep: every ordered node pair probed until it answered.
struct SweepResult {
  size_t pairs = 0, answered = 0;
  double all_answered_s = -1;  // since the sweep began; -1: not every pair answered
  double median_first_s = 0;   // the median pair's first answer
  std::string first_missing;   // "a -> c" of a pair that never answered
};

// A kernel feature, found by trying it.
struct Capability {
  std::string name;  // "netns", "veth", "wireguard-link", ...
  bool available = false;
  std::string detail;  // the kernel's answer (errno text) or what was found
};

}  // namespace vpnlab
