// CPU time from /proc/stat, system-wide over all CPUs. A tunnel's cost is charged to
// whatever runs when softirq work happens (veth runs the receiver's softirq on the sender's
// CPU; kernel WireGuard runs in workers), so per-process CPU alone misattributes it.
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

struct CpuTimes {
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;  // seconds
  double busy() const { return user + nice + system + irq + softirq; }                           // non-idle, non-steal
};

// Parses the "cpu " line (or, with cpu >= 0, the "cpuN " line) of /proc/stat text
// (USER_HZ ticks -> seconds).
CpuTimes parse_proc_stat(const std::string& text, long ticks_per_second, int cpu = -1);
std::vector<CpuTimes> parse_proc_stat_per_cpu(const std::string& text, long ticks_per_second);
CpuTimes read_cpu_times();
std::vector<CpuTimes> read_cpu_times_per_cpu();
// Each CPU's share of the softirq time in `delta` (per-CPU differences): "0:0.62;1:0.38".
std::string softirq_shares(const std::vector<CpuTimes>& delta);
CpuTimes operator-(const CpuTimes& a, const CpuTimes& b);
CpuTimes operator+(const CpuTimes& a, const CpuTimes& b);

// The value of the first "key : value" line of /proc/cpuinfo text ("" if none).
std::string cpuinfo_field(const std::string& cpuinfo, const std::string& key);

}  // namespace vpnlab
