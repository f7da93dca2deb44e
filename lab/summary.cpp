#include "lab/summary.h"

#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "lab/stats.h"

namespace vpnlab {

std::string summary_table(const std::vector<SampleRow>& rows) {
  struct Key {
    std::string product, test;
    bool operator<(const Key& o) const { return std::tie(test, product) < std::tie(o.test, o.product); }
  };
  std::map<Key, std::vector<double>> gbps, cpu;
  std::map<Key, int> total;
  std::vector<Key> order;
  for (const auto& r : rows) {
    Key k{r.product, r.test};
    if (!total.count(k)) order.push_back(k);
    total[k]++;
    // Only checked rows count: a sample that did not provably cross the tunnel is no result.
    if (r.status == "ok" && (r.valid || r.product == "baseline")) {
      gbps[k].push_back(r.gbps);
      if (r.cpu_s_per_gbit > 0) cpu[k].push_back(r.cpu_s_per_gbit);
    }
  }
  std::ostringstream o;
  char line[320];
  snprintf(line, sizeof line, "%-20s %-14s %9s %21s %6s %10s %10s %6s\n", "product", "test", "Gbit/s", "95% interval (median)", "CV",
           "x baseline", "CPU-s/Gbit", "valid");
  o << line;
  double lowest_coverage = 1;
  size_t lowest_n = 0;
  for (const Key& k : order) {
    SampleStats s = describe(gbps[k]);
    SampleStats c = describe(cpu[k]);
    std::string valid = std::to_string(s.n) + "/" + std::to_string(total[k]);
    if (s.n == 0) {
      snprintf(line, sizeof line, "%-20s %-14s %9s %21s %6s %10s %10s %6s\n", k.product.c_str(), k.test.c_str(), "-", "-", "-", "-", "-",
               valid.c_str());
      o << line;
      continue;
    }
    char interval[48], cv[16], ratio[16] = "-", cpu_text[16] = "-";
    snprintf(interval, sizeof interval, "%.3f-%.3f%s", s.ci_low, s.ci_high, s.coverage < 0.95 ? "*" : "");
    if (s.coverage < lowest_coverage) {
      lowest_coverage = s.coverage;
      lowest_n = s.n;
    }
    snprintf(cv, sizeof cv, "%.1f%%", 100 * s.cv);
    SampleStats base = describe(gbps[Key{"baseline", k.test}]);
    if (base.n > 0 && base.median > 0) snprintf(ratio, sizeof ratio, "%.3f", s.median / base.median);
    if (c.n > 0) snprintf(cpu_text, sizeof cpu_text, "%.2f", c.median);
    snprintf(line, sizeof line, "%-20s %-14s %9.3f %21s %6s %10s %10s %6s\n", k.product.c_str(), k.test.c_str(), s.median, interval, cv,
             ratio, cpu_text, valid.c_str());
    o << line;
  }
  if (lowest_coverage < 0.95) {
    snprintf(line, sizeof line, "* fewer than 6 samples: the interval is [min, max] and covers the median with only %.1f %% (%zu samples)\n",
             100 * lowest_coverage, lowest_n);
    o << line;
  }
  return o.str();
}

}  // namespace vpnlab
