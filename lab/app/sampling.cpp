#include "lab/app/sampling.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <filesystem>
#include <map>

#include "lab/base/encoding.h"
#include "lab/base/fs_util.h"
#include "lab/model/names.h"
#include "lab/model/product_spec.h"
#include "lab/results/run_files.h"
#include "lab/run/adaptive.h"

namespace vpnlab {

namespace {

constexpr int kFewestLooked = 3;  // rounds of the earliest look a budget may bring forward

// A sweep multiplies the tests: a budget that cannot hold the 3 rounds a first look needs
// would stop before any point is known. Refused, with the count, unless --force.
Status check_sweep_budget(const Plan& plan, double per_round, int fit, const SamplingRequest& r) {
  size_t points = 0;
  for (const auto& t : plan.tests) points += !t.spec.sweep_of.empty();
  if (points == 0 || fit >= kFewestLooked || r.force) return ok_status();
  std::string need = fmt::format("{:.1f} min", kFewestLooked * per_round / 60);
  return make_error("the sweep's " + std::to_string(points) + " points (" + std::to_string(plan.tests.size()) +
                        " tests) x " + std::to_string(plan.products.size()) + " products take ~" +
                        std::to_string(static_cast<long long>(per_round)) + " s a round: the time budget holds " +
                        std::to_string(fit) + " of the " + std::to_string(kFewestLooked) + " rounds a first look needs",
                    "raise max_time (--max-time; 3 rounds take about " + std::string(need) +
                        "), sweep fewer points, or give --force to measure what fits");
}

}  // namespace

Result<std::optional<SequentialPlan>> sequential_request(const SamplingRequest& r, Plan* plan) {
  if (!r.precision) {
    if (r.max_time_s || r.min_rounds)
      return make_error("--max-time and --min-rounds belong to adaptive sampling",
                        "add --precision P (e.g. 2%), or leave them out");
    // The topology's own default, unless --samples (or a rerun's count) or --sequential
    // asks for a fixed count. vpnlab's default (the file set none) needs a ratio to watch:
    // a run with nothing to compare (the baseline alone) takes the fixed count instead.
    const bool nothing_to_watch = plan->adaptive_by_default && !watched_series(*plan);
    if (!plan->precision || r.samples_given || !plan->interleave || nothing_to_watch) {
      plan->precision.reset();
      plan->max_time_s = 0;
      return std::optional<SequentialPlan>();
    }
  } else {
    plan->precision = r.precision;
    plan->max_time_s = r.max_time_s.value_or(0);  // the command line's request, whole
  }
  if (!plan->interleave) return make_error("--precision needs interleaved rounds", "leave out --sequential");
  if (auto w = watched_series(*plan); !w) return w.error();
  if (!r.samples_given) plan->samples = kDefaultMaxRounds;
  SequentialPlan seq;
  seq.target = *plan->precision;
  seq.min_rounds = r.min_rounds.value_or(kDefaultFirstLook);
  // A budget bounds the rounds by the plan's estimate; a budget too short for the first
  // look comes forward, down to 3 rounds, unless --min-rounds says.
  if (plan->max_time_s > 0 && !r.samples_given) {
    const double per_round = plan->estimated_round_seconds();
    int fit = std::max(1, static_cast<int>(plan->max_time_s / per_round));
    // vpnlab's own budget (the file asked for none) stretches to a first look rather than
    // refusing a sweep the user never gave a budget for; describe_sampling says so.
    if (plan->adaptive_by_default && !r.max_time_s && fit < kFewestLooked) {
      plan->max_time_s = kFewestLooked * per_round;
      fit = kFewestLooked;
    }
    if (auto s = check_sweep_budget(*plan, per_round, fit, r); !s) return s.error();
    if (!r.min_rounds) seq.min_rounds = std::clamp(fit, 3, seq.min_rounds);
    plan->samples = std::clamp(fit, seq.min_rounds, kDefaultMaxRounds);
  }
  seq.max_rounds = plan->samples;
  if (seq.min_rounds > seq.max_rounds)
    return make_error("--min-rounds " + std::to_string(seq.min_rounds) + " is more than the " +
                          std::to_string(seq.max_rounds) + " rounds allowed",
                      "raise --samples (the round limit) or lower --min-rounds");
  return std::optional<SequentialPlan>(seq);
}

namespace {
std::string minutes(double s) { return fmt::format("{:.1f} min", s / 60); }
}  // namespace

std::string describe_sampling(const Plan& plan, const SequentialPlan& seq, double max_time_s,
                              const std::vector<SampleRow>* earlier) {
  const double per_round = plan.estimated_round_seconds();
  const int first = seq.first_look();
  std::string out = fmt::format(
      "adaptive sampling to ±{:.1f} %: at least {} rounds (~{}), at most {} (~{}){}; a look after every round from "
      "round {}, each interval at {:.1f} % (so that the one it stops on covers with 95 %)\n",
      100 * seq.target, first, minutes(per_round * first), seq.max_rounds, minutes(per_round * seq.max_rounds),
      max_time_s > 0 ? " or " + minutes(max_time_s) : "", first, 100 * seq.confidence());
  if (plan.adaptive_by_default)
    out = std::string(
              "vpnlab's default (the file sets no samples, duration or precision; --samples N measures a fixed N): ") +
          out;
  if (plan.adaptive_by_default && max_time_s > kDefaultMaxTimeS)
    out += "  the default budget of " + minutes(kDefaultMaxTimeS) + " is stretched to " + minutes(max_time_s) +
           ": the 3 rounds a first look needs (max_time in [bench] sets your own)\n";
  if (!earlier) return out;
  auto series = watched_series(plan);
  if (!series) return out;
  // The rounds the earlier run's spread would ask for (its whole spread: a rough guide,
  // said as such). The widest spread decides; a series with fewer than 2 ratios has none.
  double widest_sd = 0;
  bool known = true;
  for (const auto& r : paired_ratios(*series, *earlier)) {
    auto i = ratio_interval(r, seq.confidence());
    known = known && i.n >= 2;
    widest_sd = std::max(widest_sd, i.log_sd);
  }
  const int expected = known ? seq.rounds_needed(widest_sd) : 0;
  if (expected > 0 && expected <= seq.max_rounds)
    out += "  expected from the earlier run's spread: " + std::to_string(expected) + " rounds (~" +
           minutes(per_round * expected) + ")\n";
  else
    out += "  expected from the earlier run's spread: the target is not met within " + std::to_string(seq.max_rounds) +
           " rounds\n";
  return out;
}

PlannedComparisons planned_comparisons(const Plan& plan, const std::string& products_path, const std::string& vs) {
  PlannedComparisons c;
  c.samples = plan.samples;
  c.vs = vs;
  for (const auto& t : plan.tests)
    if (test_kind(t.spec.kind).in_conclusion) ++c.tests;
  std::map<std::string, std::vector<std::string>> versions;  // base name -> its tagged names
  for (const auto& given : plan.products) {
    const std::string name = given.substr(0, given.find('='));
    ++c.products;
    auto spec = load_product(products_path, given);
    if (!spec || spec->tunnel) ++c.tunnels;
    if (name.find('@') != std::string::npos) versions[product_base_name(name)].push_back(name);
  }
  for (const auto& [base, names] : versions)
    if (names.size() >= 2) c.tagged.push_back(version_pair_label(names[0], names[1]));
  return c;
}

Spread planning_spread(const Plan& plan, const std::string& from_dir, const std::string& out_dir) {
  if (!from_dir.empty()) {
    if (auto rows = read_results_csv(from_dir + "/results.csv"); rows) return spread_of(*rows, "run " + from_dir);
    return Spread{};
  }
  // Run ids begin with their start time: the newest first. A results directory holds the
  // user's own runs; a few dozen are looked at, no more.
  const std::string hash = sha256_hex(read_file_text(plan.topology_file));
  std::vector<std::string> runs;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(out_dir, ec))
    if (e.is_directory(ec) && !e.is_symlink(ec)) runs.push_back(e.path().filename().string());
  std::sort(runs.rbegin(), runs.rend());
  if (runs.size() > 30) runs.resize(30);
  for (const auto& run : runs) {
    const std::string dir = out_dir + "/" + run;
    auto env = read_environment(dir, /*required=*/false);
    if (!env || !env->is_object() || !env->contains("topology_sha256") || (*env)["topology_sha256"] != hash) continue;
    auto rows = read_results_csv(dir + "/results.csv");
    if (!rows) continue;
    Spread s = spread_of(*rows, "the last run of this topology, " + dir);
    if (s.source.rfind("a stated default", 0) != 0) return s;
  }
  Spread none;
  none.source += " (no earlier run of this topology in " + out_dir + "/; 'vpnlab plan --from RUN' takes one's)";
  return none;
}

}  // namespace vpnlab
