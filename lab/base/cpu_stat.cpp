#include "lab/base/cpu_stat.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <sstream>

#include "lab/base/fs_util.h"

namespace vpnlab {

namespace {
CpuTimes parse_fields(std::istringstream& in, long ticks_per_second) {
  CpuTimes t;
  double* fields[] = {&t.user, &t.nice, &t.system, &t.idle, &t.iowait, &t.irq, &t.softirq, &t.steal};
  for (double* f : fields) {
    unsigned long long ticks = 0;
    if (!(in >> ticks)) break;
    *f = static_cast<double>(ticks) / static_cast<double>(ticks_per_second);
  }
  return t;
}
}  // namespace

CpuTimes parse_proc_stat(const std::string& text, long ticks_per_second, int cpu) {
  std::string want = cpu < 0 ? "cpu" : "cpu" + std::to_string(cpu);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string label;
    in >> label;
    if (label == want) return parse_fields(in, ticks_per_second);
  }
  return CpuTimes{};
}

std::vector<CpuTimes> parse_proc_stat_per_cpu(const std::string& text, long ticks_per_second) {
  std::vector<CpuTimes> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3]))) continue;
    std::istringstream in(line);
    std::string label;
    in >> label;
    size_t index = std::stoul(label.substr(3));
    if (out.size() <= index) out.resize(index + 1);
    out[index] = parse_fields(in, ticks_per_second);
  }
  return out;
}

CpuTimes read_cpu_times() { return parse_proc_stat(read_file_text("/proc/stat"), sysconf(_SC_CLK_TCK)); }

std::vector<CpuTimes> read_cpu_times_per_cpu() {
  return parse_proc_stat_per_cpu(read_file_text("/proc/stat"), sysconf(_SC_CLK_TCK));
}

std::string softirq_shares(const std::vector<CpuTimes>& delta) {
  double total = 0;
  for (const auto& c : delta) total += c.softirq;
  if (total <= 0) return "";
  std::string out;
  char buf[32];
  for (size_t i = 0; i < delta.size(); ++i) {
    snprintf(buf, sizeof buf, "%s%zu:%.2f", i ? ";" : "", i, delta[i].softirq / total);
    out += buf;
  }
  return out;
}

CpuTimes operator-(const CpuTimes& a, const CpuTimes& b) {
  return CpuTimes{a.user - b.user,     a.nice - b.nice, a.system - b.system,   a.idle - b.idle,
                  a.iowait - b.iowait, a.irq - b.irq,   a.softirq - b.softirq, a.steal - b.steal};
}

CpuTimes operator+(const CpuTimes& a, const CpuTimes& b) {
  return CpuTimes{a.user + b.user,     a.nice + b.nice, a.system + b.system,   a.idle + b.idle,
                  a.iowait + b.iowait, a.irq + b.irq,   a.softirq + b.softirq, a.steal + b.steal};
}

std::string cpuinfo_field(const std::string& cpuinfo, const std::string& key) {
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return line.substr(line.find(':') + 2);
  return "";
}

}  // namespace vpnlab
