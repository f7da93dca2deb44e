// One sample on a running product: fresh iperf3 servers, the test's client processes
// started together, the tunnel's counters around them, latency probes through it, and
// the checks that make its row valid.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/record/results_csv.h"
#include "lab/run/product_tunnels.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

struct SampleContext {
  const Plan* plan;
  const PlanTest* test;
  const ProductSpec* spec;
  NodeRuntime* nodes;
  ProductTunnels* session;
  std::string raw_dir;
  std::string log_dir;
  int interrupt_fd;
  bool repeating_payload = false;
  uint64_t* port_bytes_out = nullptr;      // gets iperf3's delivered bytes of a valid sample
  std::string crr_program = "vpnlab-crr";  // crr tests' generator (RunOptions::crr_program)
  std::set<std::string> meters_off;        // RunOptions::meters_off
  // A sample whose row is discarded (a warm-up, the plaintext check's own): it runs only the
  // meters its validity or its test needs (sample_meters.h).
  bool discarded = false;
  // A trial of the same sample whose idle round trip stands for this one's (a zero-loss
  // search's later trials): the latency meter does not probe the idle path again.
  const SampleRow* idle_from = nullptr;
  // Gets the seconds the sample's load ran added to it (a zero-loss search: each trial's),
  // which the run times as measuring.
  double* load_seconds_out = nullptr;
};

// What a row says about its sample before it ran: product, test and shape. It starts out
// failed; only a finished, checked sample turns it "ok".
SampleRow row_for(const Plan& plan, const PlanTest& test, const ProductSpec& spec, double duration_s);

// Runs one sample; `label` names its raw files. *interrupted is set on SIGINT/SIGTERM.
SampleRow run_sample(const SampleContext& c, const std::string& label, double duration_s, bool* interrupted);

// What decides a finished sample's validity, apart from the run: per VPN node crossed, the
// bytes iperf3 sent and received there and its counters' change over the sample, and how
// far apart the client processes started.
struct SampleScore {
  bool tunnel = true;
  bool repeating_payload = false;  // the plaintext check: one process, no window needed
  double duration_s = 0;
  double start_spread_ms = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> expect;  // node -> {sent, received}
  std::map<std::string, TunnelCounters> delta;
  std::set<std::string> relays;  // keys of native relays: checked by relay_check
};
// "" for a valid sample; otherwise why not (the first VPN node whose counters fall short,
// or starts too far apart to make one window).
std::string score_sample(const SampleScore& score);

// Once per product: a sample with iperf3's repeating payload while the underlay interface
// of the client's VPN node is watched. An encrypted tunnel must not show the payload in
// clear and must carry its traffic on its own port; the baseline must show it (or the
// watch is blind). The first warm-up of a throughput test carries it (the warm-up is
// discarded, so the payload and the capture's CPU touch no figure); otherwise a 1 s sample
// of its own does (plaintext_check).
class PlaintextWatch {
 public:
  // Starts watching; sets *c to send the repeating payload and to report delivered
  // bytes. "" when watching, otherwise why not (the check's failure).
  std::string start(SampleContext* c);
  // Stops watching: "" when the sample `row` showed what it must, otherwise why not.
  std::string verdict(const ProductSpec& spec, const SampleRow& row);

  // One end of the path: its VPN node, the interface its packets leave on, their port.
  struct End {
    std::string node, ifname;
    int port = 0;
    std::unique_ptr<PayloadWatch> watch;
  };

 private:
  End end_;
  uint64_t delivered_ = 0;
};
// A sample of its own (`seconds` long) carrying the watch. "" when as expected, otherwise why not.
std::string plaintext_check(SampleContext c, double seconds, bool* interrupted);

// Decides whether a VPN node's share of a sample crossed the tunnel: its overlay
// interface, its links toward other VPN nodes (the encrypted packets) and the product's
// own counters, when it has them, each carried at least the bytes iperf3 delivered from
// (sent) and to (received) the node. Empty string = valid; otherwise the reason.
std::string tunnel_check(bool tunnel, uint64_t sent, uint64_t received, const TunnelCounters& delta);
// A native relay between the ends (sent/received: the sending end's): its links toward them
// took in and passed on every byte both ways; its own tunnel interface plays no part.
std::string relay_check(uint64_t sent, uint64_t received, const TunnelCounters& delta);

}  // namespace vpnlab
