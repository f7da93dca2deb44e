// `vpnlab diff`: product x test verdicts between two runs. Each run's samples are an
// independent set, so the comparison is distribution-free: the ratio B/A is estimated
// as exp(Hodges-Lehmann shift of the log throughputs), its 95 % interval comes from the
// Mann-Whitney order statistics of the pairwise log differences, and the p-value from
// the exact Mann-Whitney U distribution. The comparisons judged together (one metric's
// table) are one family: each interval is at level 1 - alpha/N for the N of the family
// (Bonferroni), so all N cover together with at least 1 - alpha, and the verdict is read off
// the printed interval: "faster" when it lies wholly above 1, "slower" wholly below, "no
// significant difference" when it holds 1. A verdict cannot contradict its interval, and
// many product x test pairs do not turn noise into findings. (Holm's step-down calls a few
// more, but has no intervals that agree with its verdicts.)
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/record/metrics.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

// What a comparison judges, from each valid row: throughput (higher is better) or a cost
// (lower is better: CPU-s per Gbit, the daemons' peak RSS, p99 latency under load), as the
// metric table has them (lab/record/metrics.h). A row that did not measure a cost (0: no
// daemon, no latency probe) does not count for it.
using Metric = MetricColumn;
const Metric& throughput_metric();
// CPU-s/Gbit, peak RSS, p99 latency: what `diff` judges besides speed.
const std::vector<Metric>& cost_metrics();

struct Comparison {
  std::string product, test;
  std::string reference;        // `compare`: product A (B is `product`); empty for `diff`
  std::string metric = "gbps";  // Metric::key
  bool higher_is_better = true;
  size_t n_a = 0, n_b = 0;
  double ratio = 0;                // B / A
  double ci_low = 0, ci_high = 0;  // interval of the ratio at `level`
  double level = 0.95;             // what it was asked to cover: 1 - alpha / family
  double coverage = 0;             // what it really covers (the U distribution is discrete)
  size_t family = 1;               // comparisons corrected together
  double p_value = 1;              // the test's own two-sided p
  double p_adjusted = 1;           // min(1, family * p): below alpha exactly when the interval excludes 1
  std::string verdict;             // the metric's better/worse word, "no significant difference", "not comparable: ..."
  // What this comparison could have seen: the smallest change (0.042 = 4.2 %, either way)
  // its test finds 80 % of the time at its own noise, sample count and level. A "no
  // significant difference" with a detectable change of 40 % says little; 0 = not judged.
  double detectable = 0;
  // Two separate runs: the SD whole runs of one build show here beyond their samples (the
  // history's, lab/history/run_spread.h), already in the interval, p and detectable.
  double between_run_sd = 0;
  size_t between_runs = 0;  // the comparable runs it comes from; 0: none was added
};

// The interval level that makes `family` intervals cover together with 1 - alpha.
double family_level(size_t family, double alpha = 0.05);
// The verdict an interval says: `better`/`worse` when it lies wholly on one side of 1,
// "no significant difference" when it holds 1. Sets p_adjusted from p_value and family.
void judge_by_interval(Comparison* c, const std::string& better, const std::string& worse);

// A comparison of two separate runs, widened by the spread whole runs show beyond their
// samples (`run_sd`, on the log scale; each run carries it, so their log ratio gains 2 run_sd^2):
// each side of the interval grows in quadrature by the normal quantile of its level, the
// detectable change likewise (at 80 % power), p is read off the widened interval's normal
// approximation, and the verdict is judged again from the interval.
void add_between_run_spread(Comparison* c, double run_sd, size_t runs, const std::string& better,
                            const std::string& worse);

// Two-sided exact p-value of the Mann-Whitney U statistic for sample sizes m and n.
double mann_whitney_p(double u, size_t m, size_t n);
// Holm-adjusted p-values, in the given order.
std::vector<double> holm_adjust(const std::vector<double>& p);
// Compares two samples: the ratio b/a with its interval at `level` (the widest the data
// allow when none reaches it: `coverage` says) and the test's p-value.
// The smallest shift of log values (in units of their standard deviation, normal samples)
// that compare_samples' interval at `level` finds in `power` of the runs with n samples a
// side, by simulation of the test itself (its discrete levels included); infinite when n
// samples cannot reach the level.
double rank_shift_for_power(size_t n, double level, double power);
Comparison compare_samples(const std::vector<double>& a, const std::vector<double>& b, double level = 0.95);

// Every product x test with valid rows in both runs, one family per metric. Cost metrics list only the product x tests
// that measured them in both runs.
std::vector<Comparison> compare_runs(const std::vector<SampleRow>& a, const std::vector<SampleRow>& b,
                                     double alpha = 0.05, const Metric& metric = throughput_metric());

// The gate of `diff --threshold X`: a comparison fails it when the whole interval lies
// more than X on the wrong side of 1: slower by more than X even at its best, or (a cost)
// costlier by more than X even at its best.
bool fails_threshold(const Comparison& c, double threshold);

// "0.812-0.905" ("*" when it covers less than its level) and "slower (-12.3 %)".
std::string interval_text(const Comparison& c);
std::string verdict_text(const Comparison& c);
// "4.2 %" (Comparison::detectable); "none" when too few samples can detect no change at all;
// "-" when not judged.
std::string detectable_text(const Comparison& c);
// "99.17 %" for a level, with as many decimals as it needs.
std::string level_text(double level);
// The sentence under a table: how its intervals and verdicts were made.
std::string family_note(const std::vector<Comparison>& cs);

std::string comparison_table(const std::vector<Comparison>& cs);
// The same as a Markdown table (a CI job's step summary), with the gate's outcome per row
// when a threshold is given.
std::string comparison_markdown(const std::vector<Comparison>& cs, std::optional<double> threshold,
                                const Metric& metric = throughput_metric());

}  // namespace vpnlab
