// The mesh-scale table: per product and mesh size, convergence, bring-up CPU, daemon memory
// and threads per node, and the throughput sample; contended sizes (more nodes than CPUs)
// are marked, since their figures include waiting for a CPU.
#pragma once
#include <string>
#include <vector>

#include "lab/record/scale_record.h"
#include "lab/results/report_kinds.h"

namespace vpnlab {

std::string scale_table(const std::vector<ScaleRow>& rows);
// The report's section: the table (contended sizes marked) and, per product, convergence
// seconds, RSS per node and threads per node against the mesh size.
KindSection scale_section(const std::vector<ScaleRow>& rows, int cpu_count);

}  // namespace vpnlab
