#include "lab/results/compare.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "lab/base/stats.h"
#include "lab/base/text_table.h"
#include "lab/results/power.h"

namespace vpnlab {

namespace {

// Number of arrangements of m x's and n y's with U = u, for every u in 0..m*n; the
// classic recursion c(m, n, u) = c(m-1, n, u-n) + c(m, n-1, u), in doubles (exact up to
// 2^53, far beyond the sample counts of a run).
std::vector<double> u_counts(size_t m, size_t n) {
  // prev[j][u] for the current i.
  std::vector<std::vector<double>> cur(n + 1), prev(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = std::vector<double>(1, 1.0);  // i = 0: one arrangement, U = 0
  for (size_t i = 1; i <= m; ++i) {
    cur[0] = std::vector<double>(1, 1.0);
    for (size_t j = 1; j <= n; ++j) {
      cur[j].assign(i * j + 1, 0.0);
      for (size_t u = 0; u < prev[j].size(); ++u) cur[j][u + j] += prev[j][u];    // x last: it beats all j y's
      for (size_t u = 0; u < cur[j - 1].size(); ++u) cur[j][u] += cur[j - 1][u];  // y last
    }
    std::swap(cur, prev);
  }
  return prev[n];
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// The null distribution of the Mann-Whitney U for m x n samples, for the rank test's p-value
// and the Hodges-Lehmann interval alike: exact (the counts above, their running sums kept)
// up to 60 per side, where that costs at most ~1e7 additions; beyond, the normal
// approximation with continuity correction (the exact recursion is O(m^2 n^2): 1000 vs 1000
// samples would take ~1e12 steps).
class UTail {
 public:
  UTail(size_t m, size_t n) : m_(m), n_(n) {
    if (!exact()) return;
    counts_ = u_counts(m, n);
    double sum = 0;
    for (double v : counts_) cumulative_.push_back(sum += v);
  }
  bool exact() const { return m_ <= 60 && n_ <= 60; }
  // P(U <= u); u < 0 gives 0.
  double at_most(long u) const {
    if (u < 0) return 0;
    if (exact()) return cumulative_[std::min(static_cast<size_t>(u), cumulative_.size() - 1)] / cumulative_.back();
    return normal_cdf((static_cast<double>(u) + 0.5 - mean()) / sd());
  }
  // P(|U - mn/2| >= |u - mn/2|): the two-sided p-value of an observed U.
  double two_sided_p(double u) const {
    const double dist = std::fabs(u - mean());
    if (!exact()) return std::min(1.0, 2 * (1 - normal_cdf((dist - 0.5) / sd())));
    double extreme = 0;
    for (size_t k = 0; k < counts_.size(); ++k)
      if (std::fabs(static_cast<double>(k) - mean()) >= dist - 1e-9) extreme += counts_[k];
    return std::min(1.0, extreme / cumulative_.back());
  }

 private:
  double mean() const { return static_cast<double>(m_) * static_cast<double>(n_) / 2; }
  double sd() const {
    return std::sqrt(static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(m_ + n_ + 1) / 12);
  }
  size_t m_, n_;
  std::vector<double> counts_, cumulative_;
};

}  // namespace

double mann_whitney_p(double u, size_t m, size_t n) {
  if (m == 0 || n == 0) return 1;
  return UTail(m, n).two_sided_p(u);
}

double family_level(size_t family, double alpha) {
  return 1 - alpha / static_cast<double>(std::max<size_t>(family, 1));
}

void judge_by_interval(Comparison* c, const std::string& better, const std::string& worse) {
  c->p_adjusted = std::min(1.0, c->p_value * static_cast<double>(std::max<size_t>(c->family, 1)));
  const bool above = c->ci_low > 1, below = c->ci_high < 1;
  if (!above && !below)
    c->verdict = "no significant difference";
  else
    c->verdict = above == c->higher_is_better ? better : worse;
}

void add_between_run_spread(Comparison* c, double run_sd, size_t runs, const std::string& better,
                            const std::string& worse) {
  if (!(c->ratio > 0) || !(c->ci_low > 0)) return;
  c->between_runs = runs;
  if (!(run_sd > 0)) return;  // the runs differed no more than their samples: nothing to add
  const boost::math::normal standard;
  const double z = boost::math::quantile(standard, (1 + c->level) / 2);
  // The between-run term at the interval's level: a Student t quantile, for the spread is
  // itself estimated from `runs` runs (with z, 10 runs gave 8.7 % false alarms at 95 %).
  const double t = boost::math::quantile(boost::math::complement(
      boost::math::students_t(static_cast<double>(std::max<size_t>(runs, 2) - 1)), (1 - c->level) / 2));
  const double extra = t * std::sqrt(2.0) * run_sd;
  const double r = std::log(c->ratio), below = r - std::log(c->ci_low), above = std::log(c->ci_high) - r;
  c->ci_low = std::exp(r - std::hypot(below, extra));
  c->ci_high = std::exp(r + std::hypot(above, extra));
  // p from the widened interval, read as normal: its standard error is the mean half-width over z.
  const double se = (std::log(c->ci_high) - std::log(c->ci_low)) / (2 * z);
  c->p_value = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(standard, std::fabs(r) / se)));
  if (c->detectable > 0 && std::isfinite(c->detectable)) {
    // The same t as the interval's between-run term, plus 80 % power's normal quantile.
    const double power_t = t + boost::math::quantile(standard, 0.8);
    c->detectable = std::exp(std::hypot(std::log(1 + c->detectable), power_t * std::sqrt(2.0) * run_sd)) - 1;
  }
  c->between_run_sd = run_sd;
  judge_by_interval(c, better, worse);
}

namespace {

// The k-th smallest (0-based) of `v`, moving elements around.
double order_statistic(std::vector<double>& v, size_t k) {
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

// The k of the interval [D_(k), D_(mn+1-k)] at `level` (see compare_samples).
size_t interval_rank(const UTail& tail, size_t m, size_t n, double level) {
  const size_t total = m * n;
  const double tails = 1 - level;  // both tails together
  size_t k = 1;
  if (tail.exact()) {
    while (k < total / 2 && 2 * tail.at_most(static_cast<long>(k)) <= tails) ++k;
  } else {
    const double mn = static_cast<double>(total);
    const double sd = std::sqrt(mn * static_cast<double>(m + n + 1) / 12);
    const double z = boost::math::quantile(boost::math::normal(), 1 - tails / 2);
    k = static_cast<size_t>(std::max(1.0, std::floor(mn / 2 + 0.5 - z * sd)));
    while (k > 1 && 2 * tail.at_most(static_cast<long>(k) - 1) > tails) --k;
    while (k < total / 2 && 2 * tail.at_most(static_cast<long>(k)) <= tails) ++k;
  }
  return k;
}

}  // namespace

double rank_shift_for_power(size_t n, double level, double power) {
  // The interval excludes a shift of 0 upward when D_(k) > 0, where D are the pairwise
  // differences b_j - a_i of a trial without shift plus the shift: so a trial finds a shift
  // exactly when the shift exceeds -D_(k) of its own unshifted differences, and the shift
  // found in `power` of the trials is that quantile over trials. Normal samples of sd 1 from
  // a fixed seed (the same answer on every call), computed once per (n, level).
  static std::mutex lock;
  static std::map<std::pair<size_t, double>, double> cache;
  std::lock_guard<std::mutex> hold(lock);
  const auto key = std::make_pair(n, level);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const UTail tail(n, n);
  const size_t k = interval_rank(tail, n, n, level);
  if (n < 2 || 1 - 2 * tail.at_most(static_cast<long>(k) - 1) < level) return cache[key] = INFINITY;
  if (!tail.exact()) {  // many samples: the normal theory holds (and n^2 differences a trial would not be cheap)
    const boost::math::normal unit;
    return cache[key] = (boost::math::quantile(unit, 1 - (1 - level) / 2) + boost::math::quantile(unit, power)) *
                        std::sqrt(2.0 / n) * std::sqrt(M_PI / 3);
  }
  constexpr int kTrials = 4000;
  std::mt19937_64 rng(20261204);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> needed, a(n), b(n), diffs;
  for (int t = 0; t < kTrials; ++t) {
    for (auto& x : a) x = z(rng);
    for (auto& y : b) y = z(rng);
    diffs.clear();
    for (double x : a)
      for (double y : b) diffs.push_back(y - x);
    needed.push_back(-order_statistic(diffs, k - 1));
  }
  return cache[key] = order_statistic(needed, static_cast<size_t>(power * kTrials));
}

Comparison compare_samples(const std::vector<double>& a, const std::vector<double>& b, double level) {
  Comparison c;
  c.level = level;
  c.n_a = a.size();
  c.n_b = b.size();
  if (a.empty() || b.empty()) return c;
  std::vector<double> log_a, log_b;
  for (double x : a) log_a.push_back(std::log(x));
  for (double y : b) log_b.push_back(std::log(y));
  std::vector<double> diffs;
  diffs.reserve(a.size() * b.size());
  double u = 0;  // pairs where b beats a (ties count half)
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) {
      diffs.push_back(log_b[j] - log_a[i]);
      u += b[j] > a[i] ? 1 : b[j] == a[i] ? 0.5 : 0;
    }
  const size_t total = diffs.size();
  // Hodges-Lehmann: the median of the pairwise differences (of logs: a ratio).
  double hl = order_statistic(diffs, total / 2);
  if (total % 2 == 0) hl = (hl + *std::max_element(diffs.begin(), diffs.begin() + static_cast<long>(total / 2))) / 2;
  c.ratio = std::exp(hl);
  // With D_(1) <= ... <= D_(mn) the sorted differences, [D_(k), D_(mn+1-k)] covers the true
  // shift with probability 1 - 2 P(U <= k-1). The largest k whose coverage is still >= 95 %
  // gives the interval; when even k = 1 (the whole range) covers less, that range is given
  // with the coverage it has (marked '*' where printed). (The same k inverts the rank
  // test: the interval excludes 0 exactly when the two-sided p is at most 1 - coverage.)
  UTail tail(c.n_a, c.n_b);
  const size_t k = interval_rank(tail, c.n_a, c.n_b, level);
  c.coverage = 1 - 2 * tail.at_most(static_cast<long>(k) - 1);
  c.ci_low = std::exp(order_statistic(diffs, k - 1));
  c.ci_high = std::exp(order_statistic(diffs, total - k));
  c.p_value = tail.two_sided_p(u);
  return c;
}

const Metric& throughput_metric() { return metric_column("gbps"); }

const std::vector<Metric>& cost_metrics() {
  static const std::vector<Metric> judged = [] {
    std::vector<Metric> out;
    for (const auto& m : metric_columns())
      if (m.judged) out.push_back(m);
    return out;
  }();
  return judged;
}

namespace {

// The spread of log values within each run, pooled: what the rank test has to see through.
double pooled_log_sd(const std::vector<double>& a, const std::vector<double>& b) {
  auto sum_sq = [](const std::vector<double>& v) {
    std::vector<double> logs;
    for (double x : v) logs.push_back(std::log(x));
    const double sd = describe(logs).stdev;
    return sd * sd * static_cast<double>(v.size() - 1);
  };
  return std::sqrt((sum_sq(a) + sum_sq(b)) / static_cast<double>(a.size() + b.size() - 2));
}

}  // namespace

std::vector<Comparison> compare_runs(const std::vector<SampleRow>& a, const std::vector<SampleRow>& b, double alpha,
                                     const Metric& metric) {
  using Key = std::pair<std::string, std::string>;
  std::vector<Key> order;
  std::map<Key, std::vector<double>> va, vb;
  std::set<Key> in_a, in_b;  // a row of any status: a product absent from a run is not one that failed there
  auto collect = [&](const std::vector<SampleRow>& rows, std::map<Key, std::vector<double>>* out,
                     std::set<Key>* present) {
    for (const auto& r : rows) {
      Key key{r.product, r.test};
      if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
      present->insert(key);
      if (counts_as_result(r) && metric.value(r) > 0) (*out)[key].push_back(metric.value(r));
    }
  };
  collect(a, &va, &in_a);
  collect(b, &vb, &in_b);
  std::vector<Comparison> out;
  std::vector<size_t> tested;
  for (const auto& key : order) {
    Comparison c;
    // A cost nobody measured (the baseline has no daemon) is no finding either way.
    if (!metric.higher_is_better && va[key].empty() && vb[key].empty()) continue;
    c.n_a = va[key].size();
    c.n_b = vb[key].size();
    if (c.n_a >= 2 && c.n_b >= 2) {
      tested.push_back(out.size());
    } else {
      const char* run = !in_a.count(key) ? "run A" : !in_b.count(key) ? "run B" : c.n_a < 2 ? "run A" : "run B";
      c.verdict = !in_a.count(key) || !in_b.count(key)
                      ? std::string("not comparable: absent in ") + run
                      : std::string("not comparable: fewer than 2 valid samples in ") + run;
    }
    c.product = key.first;
    c.test = key.second;
    out.push_back(c);
  }
  // The family is known only now: every interval at its level, every verdict off its interval.
  for (size_t i : tested) {
    const Key key{out[i].product, out[i].test};
    out[i] = compare_samples(va[key], vb[key], family_level(tested.size(), alpha));
    out[i].detectable = rank_detectable_at(static_cast<int>(std::min(out[i].n_a, out[i].n_b)), out[i].level,
                                           pooled_log_sd(va[key], vb[key]));
    out[i].product = key.first;
    out[i].test = key.second;
    out[i].family = tested.size();
  }
  for (auto& c : out) {
    c.metric = metric.key;
    c.higher_is_better = metric.higher_is_better;
    if (c.ratio > 0) judge_by_interval(&c, metric.better, metric.worse);
  }
  return out;
}

// "0.812-0.905", starred when the interval covers less than its level (too few samples).
std::string interval_text(const Comparison& c) {
  return fmt::format("{:.3f}-{:.3f}{}", c.ci_low, c.ci_high, c.coverage < c.level - 1e-9 ? "*" : "");
}

std::string level_text(double level) {
  std::string buf;
  for (int decimals = 0; decimals < 4; ++decimals) {
    buf = fmt::format("{:.{}f} %", 100 * level, decimals);
    if (std::fabs(std::strtod(buf.c_str(), nullptr) - 100 * level) < 1e-9) break;
  }
  return buf;
}

std::string family_note(const std::vector<Comparison>& cs) {
  size_t family = 0;
  bool short_of_level = false;
  for (const auto& c : cs)
    if (c.ratio > 0) {
      family = std::max(family, c.family);
      short_of_level = short_of_level || c.coverage < c.level - 1e-9;
    }
  if (family == 0) return "";
  std::string o;
  if (family == 1)
    o = "one comparison: its interval is a 95 % interval; the verdict is what it says (1 inside: no significant "
        "difference)\n";
  else
    o = "the " + std::to_string(family) + " comparisons of this table are corrected together: each interval is at " +
        level_text(family_level(family)) + ", so all " + std::to_string(family) +
        " cover together with 95 % (Bonferroni); a verdict is what its interval says (1 inside: no significant "
        "difference); "
        "p(adj) = " +
        std::to_string(family) + " x p\n";
  if (short_of_level)
    o += "* too few samples for that level: the widest interval there is, covering what the coverage column says\n";
  return o;
}

// The verdict with its size when there is one: "slower (-12.3 %)".
std::string verdict_text(const Comparison& c) {
  if (c.verdict == "no significant difference" || c.ratio <= 0) return c.verdict;
  std::string pct = fmt::format(" ({:+.1f} %)", 100 * (c.ratio - 1));
  return c.verdict + pct;
}

std::string detectable_text(const Comparison& c) {
  if (c.ratio <= 0 || !(c.detectable > 0)) return "-";
  if (!std::isfinite(c.detectable)) return "none";
  return c.detectable >= 0.1 ? fmt::format("{:.0f} %", 100 * c.detectable)
                             : fmt::format("{:.1f} %", 100 * c.detectable);
}

bool fails_threshold(const Comparison& c, double threshold) {
  if (c.ratio <= 0 || c.verdict == "no significant difference" || c.verdict.rfind("not comparable", 0) == 0)
    return false;
  return c.higher_is_better ? c.ratio < 1 && c.ci_high < 1 - threshold : c.ratio > 1 && c.ci_low > 1 + threshold;
}

std::string comparison_table(const std::vector<Comparison>& cs) {
  std::ostringstream o;
  const TextTable table({-20, -14, 5, 8, 19, 8, 8, 7, 0, 0});  // the empty column: two spaces before the verdict
  o << table.line({"product", "test", "n A/B", "B/A", "interval", "p", "p(adj)", "detects", "", "verdict"});
  auto fixed = [](double v, int digits) { return fmt::format("{:.{}f}", v, digits); };
  for (const auto& c : cs) {
    std::string n = std::to_string(c.n_a) + "/" + std::to_string(c.n_b);
    if (c.ratio <= 0)
      o << table.line({c.product, c.test, n, "-", "-", "-", "-", "-", "", c.verdict});
    else
      o << table.line({c.product, c.test, n, fixed(c.ratio, 3), interval_text(c), fixed(c.p_value, 4),
                       fixed(c.p_adjusted, 4), detectable_text(c), "", verdict_text(c)});
  }
  o << "B/A: Hodges-Lehmann ratio of run B to run A with its distribution-free interval (Mann-Whitney)\n"
    << "detects: the smallest change (either way) this comparison finds about 80 % of the time at the runs' noise and "
       "its level\n"
    << family_note(cs);
  return o.str();
}

std::string comparison_markdown(const std::vector<Comparison>& cs, std::optional<double> threshold,
                                const Metric& metric) {
  std::ostringstream o;
  o << "| product | test | n A/B | B/A " << metric.title << " | interval | p(adj) | detects | verdict |"
    << (threshold ? " gate |" : "") << "\n";
  o << "|---|---|---|---|---|---|---|---|" << (threshold ? "---|" : "") << "\n";
  std::string buf;
  for (const auto& c : cs) {
    o << "| " << c.product << " | " << c.test << " | " << c.n_a << "/" << c.n_b << " | ";
    if (c.ratio <= 0) {
      o << "- | - | - | - | " << c.verdict << " |";
    } else {
      // A compared pair (ratio > 0) never has a "not comparable" verdict.
      buf = fmt::format("{:.3f} | {} | {:.4f} | {} | ", c.ratio, interval_text(c).c_str(), c.p_adjusted,
                        detectable_text(c).c_str());
      o << buf << verdict_text(c) << " |";
    }
    if (threshold) o << (fails_threshold(c, *threshold) ? " **fails** |" : " passes |");
    o << "\n";
  }
  o << "\n" << family_note(cs);
  if (threshold) {
    buf = fmt::format("{:.0f} %", 100 * *threshold);
    o << "\nGate: a row fails when B is " << metric.worse << " than A by more than " << buf
      << " even at its interval's best.\n";
  }
  return o.str();
}

}  // namespace vpnlab
