// Mesh scale: how a mesh product behaves as the mesh grows. For one mesh (a plan of N
// nodes on one bridge, every node a peer of every other) and each product in turn: the
// time from the first daemon's start until every ordered node pair has answered an echo
// through the tunnel (all pairs probed at once), each node's daemon RSS and threads, the
// machine's CPU over that bring-up, and one throughput sample between the first and the
// last node while the whole mesh is up.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/record/scale_record.h"
#include "lab/run/keys.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

struct ScaleRound {
  const Plan* plan = nullptr;
  std::string run_dir;  // this mesh's directory (logs, raw, secrets)
  std::map<std::string, X25519KeyPair> keys;
  std::string psk;
  RuntimeFactory build_nodes;
  double converge_timeout_s = 120;
  int interrupt_fd = -1;
  int cpu_count = 1;
};

// One product on a freshly built mesh; the lab is torn down again before it returns. A
// failure of the product is a row with its reason; a failure of the lab is an error.
Result<ScaleRow> measure_mesh(const ScaleRound& c, const ProductSpec& spec, bool* interrupted);

}  // namespace vpnlab
