#include "lab/results/power.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>

#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "lab/base/sequential.h"
#include "lab/base/stats.h"
#include "lab/results/compare.h"
#include "lab/results/product_compare.h"

namespace vpnlab {

namespace {

constexpr double kPower = 0.8;

double median_of(std::vector<double> v) { return v.empty() ? 0 : describe(v).median; }

std::string pct(double x) { return x >= 10 ? fmt::format("{:.0f} %", 100 * x) : fmt::format("{:.1f} %", 100 * x); }

}  // namespace

Spread spread_of(const std::vector<SampleRow>& rows, const std::string& source) {
  Spread s;
  const auto tunnels = tunnel_products(rows);
  std::map<std::pair<std::string, std::string>, std::map<int, double>> logs;  // (product, test) -> round -> log Gbit/s
  for (const auto& r : rows)
    if (counts_as_result(r) && r.gbps > 0 && !is_reference_product(r))
      logs[{r.product, r.test}][r.sample] = std::log(r.gbps);
  std::vector<double> singles, paired;
  for (const auto& [key, by_round] : logs) {
    std::vector<double> v;
    for (const auto& [round, x] : by_round) v.push_back(x);
    if (v.size() >= 2) singles.push_back(describe(v).stdev);
    if (key.first == tunnels.front()) continue;
    auto first = logs.find({tunnels.front(), key.second});
    if (first == logs.end()) continue;
    std::vector<double> d;
    for (const auto& [round, x] : by_round)
      if (auto y = first->second.find(round); y != first->second.end()) d.push_back(x - y->second);
    if (d.size() >= 2) paired.push_back(describe(d).stdev);
  }
  if (singles.empty()) return s;
  s.single = median_of(singles);
  s.paired = paired.empty() ? s.single * std::sqrt(2.0) : median_of(paired);
  std::string buf = fmt::format("CV {:.1f} % per sample and {:.1f} % between two tunnels in a round, from ",
                                100 * s.single, 100 * s.paired);
  s.source = buf + source;
  return s;
}

double min_rank_p(int n) {
  // 2 / C(2n, n), in logs: C(60, 30) is past 2^53 but its logarithm is not.
  const double log_c = std::lgamma(2.0 * n + 1) - 2 * std::lgamma(n + 1.0);
  return std::min(1.0, 2 * std::exp(-log_c));
}

int rank_samples_needed(size_t family, double alpha) {
  int n = 2;
  while (min_rank_p(n) > alpha / static_cast<double>(std::max<size_t>(family, 1))) ++n;
  return n;
}

namespace {

// The smallest standardized effect (in standard errors) a two-sided t-test with `df` degrees
// of freedom at `level` finds with kPower: the noncentral t distribution, by bisection.
double t_effect_in_se(double df, double level) {
  // Every comparison of a family asks the same (df, level), and each answer is ~60
  // non-central t evaluations: kept.
  static std::mutex lock;
  static std::map<std::pair<double, double>, double> known;
  std::lock_guard<std::mutex> hold(lock);
  if (auto it = known.find({df, level}); it != known.end()) return it->second;
  const double crit = boost::math::quantile(boost::math::students_t(df), 1 - (1 - level) / 2);
  auto power = [&](double lambda) {
    boost::math::non_central_t nct(df, lambda);
    return boost::math::cdf(boost::math::complement(nct, crit)) + boost::math::cdf(nct, -crit);
  };
  double lo = 0, hi = 1;
  while (power(hi) < kPower) hi *= 2;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (power(mid) < kPower ? lo : hi) = mid;
  }
  return known[{df, level}] = hi;
}

}  // namespace

double paired_detectable_at(int n, double level, double paired_sd) {
  if (n < 2) return INFINITY;
  const double d = t_effect_in_se(n - 1, level) * paired_sd / std::sqrt(static_cast<double>(n));
  return std::exp(d) - 1;
}

double rank_detectable_at(int n, double level, double single_sd) {
  if (n < 2) return INFINITY;
  // The rank test's own power, simulated: a normal-theory formula (the t effect with the
  // test's efficiency 3/pi) promised 80 % and gave 71 % at 5 a side, as its levels are discrete.
  return std::exp(rank_shift_for_power(static_cast<size_t>(n), level, kPower) * single_sd) - 1;
}

double paired_detectable(int n, size_t family, double paired_sd) {
  return paired_detectable_at(n, family_level(family), paired_sd);
}

double rank_detectable(int n, size_t family, double single_sd) {
  return rank_detectable_at(n, family_level(family), single_sd);
}

namespace {

std::string paired_line(const std::string& what, size_t family, const PlannedComparisons& c, const Spread& s) {
  if (c.samples < 2) return "  " + what + ": 1 sample gives no interval at all\n";
  return "  " + what + " (" + std::to_string(family) + " together): differences of " +
         pct(paired_detectable(c.samples, family, s.paired)) + " or more\n";
}

std::string rank_line(const std::string& what, size_t family, const PlannedComparisons& c, const Spread& s) {
  const std::string n = std::to_string(c.samples) + " vs " + std::to_string(c.samples);
  std::string p = fmt::format("{:.3g}", min_rank_p(c.samples));
  if (min_rank_p(c.samples) > 0.05 / static_cast<double>(family))
    return "  " + what + ": " + n + " samples cannot reach p < 0.05 after correcting for " + std::to_string(family) +
           (family == 1 ? " comparison" : " comparisons") + " (the smallest p at " + n + " is " + p + "); " +
           std::to_string(rank_samples_needed(family)) + " samples can\n";
  return "  " + what + " (" + std::to_string(family) + " together): differences of about " +
         pct(rank_detectable(c.samples, family, s.single)) + " or more\n";
}

}  // namespace

std::string power_text(const PlannedComparisons& c, const Spread& s) {
  std::string o =
      "what " + std::to_string(c.samples) + " sample(s) per product can resolve (80 % power; " + s.source + "):\n";
  const std::string tests = std::to_string(c.tests) + (c.tests == 1 ? " test" : " tests");
  if (c.tunnels >= 2 && c.tests > 0) o += paired_line("the conclusion, leader over runner-up per test", c.tests, c, s);
  if (!c.vs.empty() && c.products >= 2)
    o += paired_line("--vs " + c.vs + ", " + std::to_string(c.products - 1) + " products x " + tests,
                     (c.products - 1) * c.tests, c, s);
  if (!c.tagged.empty())
    o += rank_line("'vpnlab diff RUN' of " + c.tagged.front() + (c.tagged.size() > 1 ? " and the other versions" : "") +
                       ", " + tests,
                   c.tagged.size() * c.tests, c, s);
  o += rank_line("'vpnlab diff' of two such runs, " + std::to_string(c.products) + " products x " + tests,
                 c.products * c.tests, c, s);
  return o;
}

}  // namespace vpnlab
