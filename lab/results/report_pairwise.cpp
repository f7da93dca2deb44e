#include "lab/results/report_pairwise.h"

#include <algorithm>
#include <cstdio>

#include "lab/results/product_compare.h"

namespace vpnlab {

namespace {

std::string cell(const Comparison& c) {
  if (c.ratio <= 0) return "not comparable";
  char buf[128];
  snprintf(buf, sizeof buf, "%.3f (%.3f-%.3f%s) %s", c.ratio, c.ci_low, c.ci_high, c.coverage < 0.95 - 1e-9 ? "*" : "",
           c.verdict == "no significant difference" ? "n.s." : c.verdict.c_str());
  return buf;
}

}  // namespace

PairwiseSection pairwise_section(const std::vector<SampleRow>& rows, const std::string& vs) {
  PairwiseSection out;
  std::vector<std::string> products;
  for (const auto& r : rows)
    if (std::find(products.begin(), products.end(), r.product) == products.end()) products.push_back(r.product);
  out.reference = vs;
  if (out.reference.empty())
    for (const auto& p : products)
      if (p != "baseline") {
        out.reference = p;
        break;
      }
  std::vector<ProductPair> pairs;
  for (const auto& p : products)
    if (p != out.reference && p != "baseline") pairs.push_back({out.reference, p});
  if (out.reference.empty() || pairs.empty()) return PairwiseSection{};
  auto cs = compare_products(rows, pairs);
  out.rows.push_back({"product", "test", "Gbit/s", "CPU-s/Gbit", "daemon RSS", "p99 latency"});
  for (const auto& pair : pairs)
    for (const auto& t : shared_tests(rows, pair.a, pair.b)) {
      std::vector<std::string> row = {pair.b, t};
      for (const char* key : {"gbps", "cpu_s_per_gbit", "daemon_rss_kb", "latency_p99_ms"}) {
        auto c = std::find_if(cs.begin(), cs.end(), [&](const Comparison& x) { return x.product == pair.b && x.test == t && x.metric == key; });
        row.push_back(c == cs.end() ? "-" : cell(*c));
        if (c != cs.end() && c->ratio > 0 && c->metric == "gbps") out.gbps_bars[t].push_back({pair.b, c->ratio, c->ci_low, c->ci_high});
      }
      out.rows.push_back(row);
    }
  return out;
}

}  // namespace vpnlab
