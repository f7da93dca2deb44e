// scale.csv's record: one line per mesh size and product of `vpnlab scale`
// (lab/run/mesh_scale.h measures it, lab/results/scale_table.h reads it into tables).
#pragma once
#include <cstddef>
#include <string>

namespace vpnlab {

struct ScaleRow {
  std::string product;
  int nodes = 0;
  bool contended = false;  // more nodes than CPUs: nodes share CPUs
  double converge_s = -1;  // first daemon started -> every pair answered; -1: did not converge (see reason)
  double sweep_s = -1;     // of that, the first probe -> every pair answered (daemons all configured)
  size_t pairs = 0, answered = 0;
  double bringup_cpu_s = 0;                  // system-wide busy CPU seconds, daemons' start -> converged
  double rss_mb_median = 0, rss_mb_max = 0;  // per node: its daemons' peak RSS
  int threads_median = 0, threads_max = 0;
  double gbps = 0;  // first node -> last node, one sample
  bool sample_valid = false;
  std::string reason;  // "" when every figure is there
};

// scale.csv: one line per mesh size and product (header first).
std::string scale_csv_header();
std::string scale_csv_line(const ScaleRow& r);

}  // namespace vpnlab
