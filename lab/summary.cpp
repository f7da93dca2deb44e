#include "lab/summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

namespace vpnlab {

std::string summary_table(const std::vector<SampleRow>& rows) {
  struct Key {
    std::string product, test;
    bool operator<(const Key& o) const { return std::tie(test, product) < std::tie(o.test, o.product); }
  };
  std::map<Key, std::vector<double>> valid;
  std::map<Key, int> total;
  std::vector<Key> order;
  for (const auto& r : rows) {
    Key k{r.product, r.test};
    if (!total.count(k)) order.push_back(k);
    total[k]++;
    if (r.status == "ok" && (r.valid || r.product == "baseline")) valid[k].push_back(r.gbps);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  std::ostringstream o;
  char line[256];
  snprintf(line, sizeof line, "%-20s %-16s %10s %19s %9s %7s\n", "product", "test", "median", "min-max Gbit/s", "x baseline", "valid");
  o << line;
  for (const Key& k : order) {
    auto& v = valid[k];
    std::string ratio = "-";
    if (!v.empty() && valid.count(Key{"baseline", k.test}) && !valid[Key{"baseline", k.test}].empty()) {
      char b[32];
      snprintf(b, sizeof b, "%.3f", median(v) / median(valid[Key{"baseline", k.test}]));
      ratio = b;
    }
    std::string valid_text = std::to_string(v.size()) + "/" + std::to_string(total[k]);
    if (v.empty())
      snprintf(line, sizeof line, "%-20s %-16s %10s %19s %9s %7s\n", k.product.c_str(), k.test.c_str(), "-", "-", "-", valid_text.c_str());
    else {
      char range[48];
      snprintf(range, sizeof range, "%.3f-%.3f", *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
      snprintf(line, sizeof line, "%-20s %-16s %10.3f %19s %9s %7s\n", k.product.c_str(), k.test.c_str(), median(v), range, ratio.c_str(),
               valid_text.c_str());
    }
    o << line;
  }
  return o.str();
}

}  // namespace vpnlab
