#include "lab/results/scale_table.h"

#include <cstdio>

namespace vpnlab {

std::string scale_table(const std::vector<ScaleRow>& rows) {
  std::string out;
  char line[512];
  const char* head = "%-16s %6s %10s %8s %11s %9s %9s %9s %9s %8s  %s\n";
  std::snprintf(line, sizeof line, head, "product", "nodes", "converge s", "probe s", "pairs", "CPU-s", "RSS MB", "RSS max", "threads", "Gbit/s", "");
  out += line;
  bool any_contended = false;
  for (const auto& r : rows) {
    any_contended = any_contended || r.contended;
    std::string nodes = std::to_string(r.nodes) + (r.contended ? "*" : "");
    if (r.converge_s < 0) {
      std::snprintf(line, sizeof line, "%-16s %6s %10s %8s %11s %9s %9s %9s %9s %8s  %s\n", r.product.c_str(), nodes.c_str(), "-", "-",
                    r.pairs ? (std::to_string(r.answered) + "/" + std::to_string(r.pairs)).c_str() : "-", "-", "-", "-", "-", "-", r.reason.c_str());
      out += line;
      continue;
    }
    std::string gbps = r.sample_valid ? std::to_string(r.gbps).substr(0, 5) : "-";
    std::snprintf(line, sizeof line, "%-16s %6s %10.2f %8.2f %11zu %9.1f %9.1f %9.1f %9d %8s  %s\n", r.product.c_str(), nodes.c_str(), r.converge_s,
                  r.sweep_s, r.pairs,
                  r.bringup_cpu_s, r.rss_mb_median, r.rss_mb_max, r.threads_median, gbps.c_str(), r.reason.c_str());
    out += line;
  }
  out += "converge s: first daemon started -> every ordered node pair answered an echo through the tunnel (all pairs probed at once);\n"
         "probe s: of that, from the first probe (every daemon started and configured) on;\n"
         "CPU-s: the machine's busy CPU seconds over that bring-up; RSS MB, threads: per node, its daemons' peak RSS (median node; max);\n"
         "Gbit/s: one sample from the first node to the last with the whole mesh up.\n";
  if (any_contended) out += "* contended: more nodes than CPUs, so nodes share CPUs and every figure includes waiting for one.\n";
  return out;
}

}  // namespace vpnlab
