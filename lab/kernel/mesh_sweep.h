// Full-mesh convergence, measured: from every node, ICMP echoes to every other node's
// overlay address at once, repeated to the ones that have not answered yet, until every
// ordered pair has answered once (or the time is up). One raw socket per node, all polled
// by one thread: a 100-node mesh is 9900 pairs, which one-by-one probing would serialise
// (and so measure the probe, not the mesh).
#pragma once
#include <string>
#include <vector>

#include "lab/base/ipv4.h"
#include "lab/base/result.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

struct SweepSource {
  std::string name;  // the node, for messages
  Ipv4Addr self;     // its own address (a pair is probed from its earlier node first)
  int netns_fd = -1;
  std::vector<Ipv4Addr> targets;
  std::vector<std::string> target_names;
};

// A pair is probed from its earlier source first and the other way once that answered:
// both ends starting a handshake at once is a collision some products resolve only by
// retrying (WireGuard replaces its pending handshake with the peer's, 5 s apart: a 5-node
// wireguard-go mesh took 20 s to answer both ways at once, not 1).
// Each unanswered pair gets one echo per round until every pair answered or `timeout_s`
// passed; an interrupt ends it with an error. A round lasts 100 ms, or longer for large
// meshes (pairs / 10 ms: at most 10 000 echoes a second), so that the probe does not
// itself flood the daemons it is waiting for (9900 pairs every 100 ms kept a 100-node
// Nebula mesh from converging here).
Result<SweepResult> sweep_until_answered(const std::vector<SweepSource>& sources, double timeout_s, int interrupt_fd);

}  // namespace vpnlab
