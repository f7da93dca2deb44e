#include "lab/summary.h"

#include <cstdio>
#include <map>
#include <sstream>

namespace vpnlab {

std::vector<ProductTestSummary> summarize(const std::vector<SampleRow>& rows) {
  std::vector<ProductTestSummary> out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<std::vector<double>> gbps, cpu;
  for (const auto& r : rows) {
    auto key = std::make_pair(r.product, r.test);
    if (!index.count(key)) {
      index[key] = out.size();
      out.push_back(ProductTestSummary{r.product, r.test});
      gbps.emplace_back();
      cpu.emplace_back();
    }
    size_t i = index[key];
    out[i].rows++;
    // Only checked rows count: a sample that did not provably cross the tunnel is no result.
    if (r.status == "ok" && (r.valid || r.product == "baseline")) {
      gbps[i].push_back(r.gbps);
      if (r.cpu_s_per_gbit > 0) cpu[i].push_back(r.cpu_s_per_gbit);
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].gbps = describe(gbps[i]);
    out[i].cpu_per_gbit = describe(cpu[i]);
  }
  for (auto& s : out) {
    auto base = index.find({"baseline", s.test});
    if (base == index.end() || s.gbps.n == 0) continue;
    const SampleStats& b = out[base->second].gbps;
    if (b.n > 0 && b.median > 0) s.ratio_to_baseline = s.gbps.median / b.median;
  }
  return out;
}

std::string summary_table(const std::vector<SampleRow>& rows) {
  std::ostringstream o;
  char line[320];
  snprintf(line, sizeof line, "%-20s %-14s %9s %21s %6s %10s %10s %6s\n", "product", "test", "Gbit/s", "95% interval (median)", "CV",
           "x baseline", "CPU-s/Gbit", "valid");
  o << line;
  double lowest_coverage = 1;
  size_t lowest_n = 0;
  for (const auto& s : summarize(rows)) {
    std::string valid = std::to_string(s.gbps.n) + "/" + std::to_string(s.rows);
    if (s.gbps.n == 0) {
      snprintf(line, sizeof line, "%-20s %-14s %9s %21s %6s %10s %10s %6s\n", s.product.c_str(), s.test.c_str(), "-", "-", "-", "-", "-",
               valid.c_str());
      o << line;
      continue;
    }
    char interval[48], cv[16], ratio[16] = "-", cpu_text[16] = "-";
    snprintf(interval, sizeof interval, "%.3f-%.3f%s", s.gbps.ci_low, s.gbps.ci_high, s.gbps.coverage < 0.95 ? "*" : "");
    if (s.gbps.coverage < lowest_coverage) {
      lowest_coverage = s.gbps.coverage;
      lowest_n = s.gbps.n;
    }
    snprintf(cv, sizeof cv, "%.1f%%", 100 * s.gbps.cv);
    if (s.ratio_to_baseline > 0) snprintf(ratio, sizeof ratio, "%.3f", s.ratio_to_baseline);
    if (s.cpu_per_gbit.n > 0) snprintf(cpu_text, sizeof cpu_text, "%.2f", s.cpu_per_gbit.median);
    snprintf(line, sizeof line, "%-20s %-14s %9.3f %21s %6s %10s %10s %6s\n", s.product.c_str(), s.test.c_str(), s.gbps.median, interval,
             cv, ratio, cpu_text, valid.c_str());
    o << line;
  }
  if (lowest_coverage < 0.95) {
    snprintf(line, sizeof line, "* fewer than 6 samples: the interval is [min, max] and covers the median with only %.1f %% (%zu samples)\n",
             100 * lowest_coverage, lowest_n);
    o << line;
  }
  return o.str();
}

nlohmann::json summary_json(const std::vector<SampleRow>& rows) {
  auto stats = [](const SampleStats& s) {
    return nlohmann::json{{"n", s.n},         {"median", s.median}, {"mean", s.mean},         {"stdev", s.stdev},
                          {"cv", s.cv},       {"min", s.min},       {"max", s.max},           {"ci95_low", s.ci_low},
                          {"ci95_high", s.ci_high}, {"ci_coverage", s.coverage}};
  };
  nlohmann::json j = {{"schema", kSummarySchema}, {"results", nlohmann::json::array()}};
  if (!rows.empty()) j["run_id"] = rows.front().run_id;
  for (const auto& s : summarize(rows)) {
    nlohmann::json r = {{"product", s.product}, {"test", s.test}, {"rows", s.rows}, {"valid_rows", s.gbps.n},
                        {"gbps", stats(s.gbps)}, {"cpu_s_per_gbit", stats(s.cpu_per_gbit)}};
    if (s.ratio_to_baseline > 0) r["ratio_to_baseline"] = s.ratio_to_baseline;
    j["results"].push_back(r);
  }
  return j;
}

}  // namespace vpnlab
