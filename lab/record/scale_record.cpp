#include "lab/record/scale_record.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>

namespace vpnlab {

std::string scale_csv_header() {
  return "product,nodes,contended,converge_s,sweep_s,pairs,answered,bringup_cpu_s,rss_mb_median,rss_mb_max,threads_"
         "median,threads_max,gbps,sample_valid,reason";
}

std::string scale_csv_line(const ScaleRow& r) {
  std::string reason = r.reason;
  std::replace(reason.begin(), reason.end(), '"', '\'');
  std::string buf =
      fmt::format("{},{},{},{:.3f},{:.3f},{},{},{:.2f},{:.1f},{:.1f},{},{},{:.4f},{},", r.product, r.nodes,
                  r.contended ? 1 : 0, r.converge_s, r.sweep_s, r.pairs, r.answered, r.bringup_cpu_s, r.rss_mb_median,
                  r.rss_mb_max, r.threads_median, r.threads_max, r.gbps, r.sample_valid ? 1 : 0);
  return std::string(buf) + "\"" + reason + "\"";
}

}  // namespace vpnlab
