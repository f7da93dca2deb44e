#include "lab/results/paired.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lab/base/sequential.h"

namespace vpnlab {

PairedEstimate paired_ratio(const std::vector<double>& a, const std::vector<double>& b, double level) {
  PairedEstimate e;
  std::vector<double> ratios;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] > 0 && b[i] > 0) ratios.push_back(b[i] / a[i]);
  RatioInterval r = ratio_interval(ratios, level);
  e.n = r.n;
  e.ratio = r.ratio;
  if (r.n < 2) return e;
  e.ci_low = r.low;
  e.ci_high = r.high;
  e.log_sd = r.log_sd;
  const double se = r.log_sd / std::sqrt(static_cast<double>(r.n));
  const double mean_log = std::log(r.ratio);
  // Identical ratios in every round: no spread, the ratio is what it is.
  if (se == 0)
    e.p_value = mean_log == 0 ? 1 : 0;
  else
    e.p_value = t_two_sided_p(mean_log / se, static_cast<int>(r.n) - 1);
  return e;
}

std::string ratio_interval_text(const RatioInterval& r) {
  if (r.n == 0 || r.ratio <= 0) return "-";
  std::string buf;
  if (r.n < 2)
    buf = fmt::format("{:.3f}", r.ratio);
  else if (r.half_width > 0.5)
    buf = fmt::format("{:.3f} ±{:.0f} %", r.ratio, 100 * r.half_width);
  else
    buf = fmt::format("{:.3f} ({:.3f}-{:.3f})", r.ratio, r.low, r.high);
  return buf;
}

nlohmann::json ratio_interval_json(const RatioInterval& r) {
  nlohmann::json j = {{"n", r.n}, {"ratio", r.ratio}};
  if (r.n >= 2) j["ci_low"] = r.low, j["ci_high"] = r.high, j["level"] = kRatioLevel;
  return j;
}

ByRound values_by_round(const std::vector<SampleRow>& rows, const std::string& product, const std::string& test,
                        double (*value)(const SampleRow&)) {
  ByRound out;
  for (const auto& r : rows)
    if (r.product == product && r.test == test && counts_as_result(r) && value(r) > 0) out[r.sample] = value(r);
  return out;
}

void pair_rounds(const ByRound& a, const ByRound& b, std::vector<double>* va, std::vector<double>* vb) {
  for (const auto& [round, x] : a)
    if (auto y = b.find(round); y != b.end()) va->push_back(x), vb->push_back(y->second);
}

}  // namespace vpnlab
