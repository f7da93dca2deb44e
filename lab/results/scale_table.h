// The mesh-scale table: per product and mesh size, convergence, bring-up CPU, daemon memory
// and threads per node, and the throughput sample; contended sizes (more nodes than CPUs)
// are marked, since their figures include waiting for a CPU.
#pragma once
#include <string>
#include <vector>

#include "lab/run/mesh_scale.h"

namespace vpnlab {

std::string scale_table(const std::vector<ScaleRow>& rows);

}  // namespace vpnlab
