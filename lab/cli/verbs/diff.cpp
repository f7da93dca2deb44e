// `vpnlab diff RUN_A RUN_B`: two runs (or two tagged builds of one) compared per product x test.
#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/app/run_diff.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"
#include "lab/results/compare.h"

namespace vpnlab {
namespace {

struct DiffOptions {
  Thresholds costs;  // --threshold-cpu, --threshold-rss, --threshold-p99 (--threshold is shared)
  bool relative = false;
};

// A cost may grow by more than 100 %: up to 10 (= 1000 %).
Refusal cost_threshold(const std::string& name, const std::string& v, std::optional<double>* into) {
  auto x = whole_double(v);
  if (!x || !(*x >= 0 && *x <= 10)) return name + " '" + v + "' is not a fraction from 0 to 10, e.g. 0.2 for 20 %";
  *into = *x;
  return {};
}

const std::vector<Option<DiffOptions>> kDiffOptions = {
    {"--threshold-cpu", "X", "exit 3 when a product's CPU-s/Gbit is higher by more than X even at the interval's best",
     [](DiffOptions& o, const std::string& v) { return cost_threshold("--threshold-cpu", v, &o.costs.cpu); }},
    {"--threshold-rss", "X", "exit 3 when its daemons' peak RSS is larger by more than X (a leak shows here)",
     [](DiffOptions& o, const std::string& v) { return cost_threshold("--threshold-rss", v, &o.costs.rss); }},
    {"--threshold-p99", "X", "exit 3 when its p99 latency under load is higher by more than X",
     [](DiffOptions& o, const std::string& v) { return cost_threshold("--threshold-p99", v, &o.costs.p99); }},
    {"--relative", "",
     "compare each product's ratio to its own run's baseline (round-paired): cancels drift of the machine between "
     "runs",
     set_flag<&DiffOptions::relative>},
};

int cmd_diff(const Args& a) {
  DiffOptions own;
  if (auto code = parse_own("diff", kDiffOptions, a, &own)) return *code;
  if (a.positional.size() != 1 && a.positional.size() != 2)
    return usage_error(
        "diff", "give two run directories, RUN_A (before) and RUN_B (after), or one run with two tagged versions");
  if (a.positional.size() == 1 && own.relative)
    return usage_error("diff", "--relative compares two runs; one run's versions share their rounds already");
  Thresholds t = own.costs;
  t.gbps = a.threshold;
  auto d = a.positional.size() == 1 ? diff_tagged_run(run_dir_arg(a.positional[0]), t)
                                    : diff_runs(run_dir_arg(a.positional[0]), run_dir_arg(a.positional[1]), t,
                                                own.relative, a.force, a.history_path);
  if (!d) return fail(d.error());
  if (a.json) {
    std::cout << diff_json(*d, t).dump(2) << "\n";
  } else if (a.markdown) {
    if (!d->provenance.empty()) {
      std::cout << "The runs differ in:\n\n";
      for (const auto& p : d->provenance) std::cout << "- " << p.what << ": A `" << p.a << "`, B `" << p.b << "`\n";
      std::cout << "\n";
    }
    std::cout << comparison_markdown(d->comparisons, t.gbps);
    for (const auto& metric : cost_metrics()) {
      std::vector<Comparison> of_metric;
      for (const auto& c : d->costs)
        if (c.metric == metric.key) of_metric.push_back(c);
      if (!of_metric.empty()) std::cout << "\n" << comparison_markdown(of_metric, t.of(metric.key), metric);
    }
  } else {
    std::cout << d->text;
  }
  return d->gate_failed ? kExitGate : 0;
}

}  // namespace

extern const Verb kDiffVerb = {
    "diff",
    "diff RUN_A RUN_B [--threshold X] [--threshold-cpu X] [--threshold-rss X] [--threshold-p99 X] [--relative] "
    "[--force] [--json|--markdown]\n"
    "           | diff RUN [the same thresholds] [--json|--markdown]",
    "Compares two runs per product x test: faster / slower / no significant difference, with the ratio B/A and its "
    "interval\n"
    "(Hodges-Lehmann, Mann-Whitney); the N comparisons of a table cover together with 95 % (each at 1 - 5 %/N) and "
    "each\n"
    "verdict is what its interval says. Two runs: where the history (--history) holds 4 or more other comparable runs "
    "of a\n"
    "product, its intervals also hold how far whole runs differ beyond their samples (a line under the table says "
    "so).\n"
    "With one RUN measured with --product NAME@A=/path --product NAME@B=/path: the same verdicts for B against A, "
    "which\n"
    "ran interleaved in the same rounds (the way to compare two builds: both see the same machine drift).",
    {"--threshold", "--threshold-cpu", "--threshold-rss", "--threshold-p99", "--relative", "--force", "--history",
     "--json", "--markdown"},
    cmd_diff,
    {},
    nullptr,
    own_options(kDiffOptions)};

}  // namespace vpnlab
