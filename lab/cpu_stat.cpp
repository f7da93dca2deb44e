#include "lab/cpu_stat.h"

#include <unistd.h>

#include <sstream>

#include "lab/fs_util.h"

namespace vpnlab {

CpuTimes parse_proc_stat(const std::string& text, long ticks_per_second) {
  CpuTimes t;
  std::istringstream in(text);
  std::string label;
  in >> label;
  if (label != "cpu") return t;
  double* fields[] = {&t.user, &t.nice, &t.system, &t.idle, &t.iowait, &t.irq, &t.softirq, &t.steal};
  for (double* f : fields) {
    unsigned long long ticks = 0;
    if (!(in >> ticks)) break;
    *f = static_cast<double>(ticks) / static_cast<double>(ticks_per_second);
  }
  return t;
}

CpuTimes read_cpu_times() { return parse_proc_stat(read_file_text("/proc/stat"), sysconf(_SC_CLK_TCK)); }

CpuTimes operator-(const CpuTimes& a, const CpuTimes& b) {
  return CpuTimes{a.user - b.user, a.nice - b.nice, a.system - b.system, a.idle - b.idle,
                  a.iowait - b.iowait, a.irq - b.irq, a.softirq - b.softirq, a.steal - b.steal};
}

}  // namespace vpnlab
