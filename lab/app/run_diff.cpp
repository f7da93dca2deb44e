#include "lab/app/run_diff.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "lab/app/diff_spread.h"
#include "lab/base/fs_util.h"
#include "lab/model/names.h"
#include "lab/results/provenance.h"
#include "lab/results/run_files.h"

namespace vpnlab {

std::vector<SampleRow> relative_to_baseline(const std::vector<SampleRow>& rows) {
  std::map<std::pair<std::string, int>, double> base;  // (test, sample) -> baseline Gbit/s
  for (const auto& r : rows)
    if (r.product == "baseline" && r.status == "ok" && r.gbps > 0) base[{r.test, r.sample}] = r.gbps;
  std::vector<SampleRow> out;
  for (auto r : rows) {
    auto b = base.find({r.test, r.sample});
    if (r.product == "baseline" || b == base.end()) continue;
    r.gbps /= b->second;
    out.push_back(r);
  }
  return out;
}

TaggedPairs tagged_versions(const std::vector<SampleRow>& rows, const std::vector<std::string>& order) {
  // Products in the order they were asked for (then in order of appearance).
  std::vector<std::string> products;
  auto add = [&](const std::string& p) {
    if (std::find(products.begin(), products.end(), p) == products.end()) products.push_back(p);
  };
  for (const auto& o : order) add(o.substr(0, o.find('=')));
  for (const auto& r : rows) add(r.product);
  std::map<std::string, std::vector<std::string>> tags;  // base -> its tagged names, in order
  for (const auto& p : products)
    if (p.find('@') != std::string::npos &&
        std::any_of(rows.begin(), rows.end(), [&](auto& r) { return r.product == p; }))
      tags[product_base_name(p)].push_back(p);
  TaggedPairs out;
  for (const auto& [base, names] : tags) {
    if (names.size() < 2) continue;
    // Both sides carry one name, so that compare_runs pairs them per test.
    std::string label = version_pair_label(names[0], names[1]);
    out.labels.push_back(label);
    for (auto r : rows) {
      if (r.product != names[0] && r.product != names[1]) continue;
      bool first = r.product == names[0];
      r.product = label;
      (first ? out.a : out.b).push_back(r);
    }
  }
  return out;
}

namespace {

// The baseline (the underlay alone) judged like any product: where its own verdict is not
// "no significant difference", the two runs' machines differ, whatever the builds did.
// Interleaved rounds put a fresh lab and bring-up in every sample, so a run's interval holds
// that spread; what it cannot hold is a move of the whole machine between two runs, which
// the baseline shows and --relative cancels.
void note_baseline_moves(const std::string& run_a, const std::string& run_b, DiffOutcome* out) {
  for (const auto& c : out->comparisons)
    if (c.product == "baseline" && c.ratio > 0 && c.verdict != "no significant difference" &&
        c.verdict.rfind("not comparable", 0) != 0)
      out->baseline_moves.push_back(c);
  if (out->baseline_moves.empty()) return;
  for (const auto& c : out->baseline_moves)
    out->text += "machine: the baseline itself is " + verdict_text(c) + " in run B on " + c.test + " (" +
                 interval_text(c) +
                 "): the machine moved between the runs, and every verdict of that test includes it\n";
  out->text += "hint: 'vpnlab diff " + run_a + " " + run_b +
               " --relative' divides each product by its own run's baseline of the same round, which cancels it\n";
}

// Each base name -> the product names (versions) a run has of it, in order.
std::map<std::string, std::vector<std::string>> versions_of(const std::vector<SampleRow>& rows) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& r : rows) {
    auto& v = out[product_base_name(r.product)];
    if (std::find(v.begin(), v.end(), r.product) == v.end()) v.push_back(r.product);
  }
  return out;
}

}  // namespace

std::vector<std::string> pair_versions_across_runs(std::vector<SampleRow>* a, std::vector<SampleRow>* b) {
  auto in_a = versions_of(*a), in_b = versions_of(*b);
  std::vector<std::string> said;
  for (const auto& [base, names_a] : in_a) {
    auto other = in_b.find(base);
    if (other == in_b.end() || names_a.size() != 1 || other->second.size() != 1 || names_a[0] == other->second[0])
      continue;
    const std::string& from = names_a[0];
    const std::string& to = other->second[0];
    const std::string label = version_pair_label(from, to);
    for (auto& r : *a)
      if (r.product == from) r.product = label;
    for (auto& r : *b)
      if (r.product == to) r.product = label;
    said.push_back("paired across the runs: " + from + " in A with " + to + " in B, the only version of " + base +
                   " in each");
  }
  return said;
}

namespace {

// The costs both sides measured, one table per metric (the throughput one is already there).
// Each judged cost's table; with a history, its intervals also hold how far whole runs
// differ in that cost (the throughput table's lines already said where that is not known).
void add_costs(const std::vector<SampleRow>& a, const std::vector<SampleRow>& b,
               const std::optional<std::string>& history, DiffOutcome* out) {
  for (const auto& metric : cost_metrics()) {
    auto cs = compare_runs(a, b, 0.05, metric);
    if (cs.empty()) continue;
    std::string between;
    if (history && !a.empty() && !b.empty())
      between = add_between_run_spreads(*history, a.front().run_id, b.front().run_id, metric.key, false, &cs);
    out->text += "\n" + metric.title + " (B/A; lower is better):\n" + comparison_table(cs) + between;
    out->costs.insert(out->costs.end(), cs.begin(), cs.end());
  }
}

// A gate that passes says so only for what it could see: the comparisons whose noise hides a
// change as large as their threshold are named with what they do detect.
std::string blind_spots(const std::vector<const Comparison*>& all, const Thresholds& t) {
  std::string names;
  size_t blind = 0, judged = 0;
  for (const Comparison* c : all) {
    auto limit = t.of(c->metric);
    if (!limit || c->ratio <= 0) continue;
    ++judged;
    if (!(c->detectable > *limit) || fails_threshold(*c, *limit)) continue;
    if (++blind > 3) continue;
    names += std::string(names.empty() ? "" : ", ") + c->product + " / " + c->test + " " + c->metric +
             (std::isfinite(c->detectable) ? " sees " + detectable_text(*c) + " or more"
                                           : " sees no change: too few samples");
  }
  if (blind == 0) return "";
  return "gate: " + std::to_string(blind) + " of " + std::to_string(judged) +
         " comparisons cannot see their threshold at this noise: " + names + (blind > 3 ? ", ..." : "") +
         "\nhint: more samples per run narrow what a comparison detects (see 'vpnlab plan')\n";
}

void apply_gate(DiffOutcome* out, const Thresholds& t) {
  if (!t.gbps && !t.cpu && !t.rss && !t.p99) return;
  std::vector<const Comparison*> all;
  for (const auto& c : out->comparisons) all.push_back(&c);
  for (const auto& c : out->costs) all.push_back(&c);
  for (const Comparison* c : all) {
    auto limit = t.of(c->metric);
    if (!limit || !fails_threshold(*c, *limit)) continue;
    out->gate_failed = true;
    std::string line;
    if (c->higher_is_better)
      line = fmt::format("GATE: {} / {} is slower by more than {:.0f} % (B/A at most {:.3f})\n", c->product, c->test,
                         100 * *limit, c->ci_high);
    else
      line = fmt::format("GATE: {} / {}: {} is {} by more than {:.0f} % (B/A at least {:.3f})\n", c->product, c->test,
                         c->metric, c->verdict, 100 * *limit, c->ci_low);
    out->text += line;
  }
  if (!out->gate_failed) {
    std::string limits;
    auto add = [&](const char* what, std::optional<double> x) {
      if (x)
        limits += std::string(limits.empty() ? "" : ", ") + what + " by more than " +
                  std::to_string(static_cast<int>(100 * *x + 0.5)) + " %";
    };
    add("slower", t.gbps);
    add("costlier in CPU-s/Gbit", t.cpu);
    add("larger in RSS", t.rss);
    add("higher in p99", t.p99);
    out->text += "gate: nothing is " + limits + "\n";
  }
  out->text += blind_spots(all, t);
}

}  // namespace

std::optional<double> Thresholds::of(const std::string& key) const {
  if (key == "gbps") return gbps;
  if (key == "cpu_s_per_gbit") return cpu;
  if (key == "daemon_rss_kb") return rss;
  if (key == "latency_p99_ms") return p99;
  return std::nullopt;
}

Result<DiffOutcome> diff_tagged_run(const std::string& run, const Thresholds& thresholds) {
  auto rows = read_results_csv(run + "/results.csv");
  if (!rows) return rows.error();
  std::vector<std::string> order;
  auto env = read_environment(run, /*required=*/false);
  if (!env) return env.error();
  if (env->contains("requested_products"))
    for (const auto& p : (*env)["requested_products"]) order.push_back(p.get<std::string>());
  TaggedPairs pairs = tagged_versions(*rows, order);
  if (pairs.labels.empty())
    return make_error(run + " has no product measured in two tagged versions",
                      "give two run directories, or measure two versions in one run: --product NAME@old=/path "
                      "--product NAME@new=/path");
  DiffOutcome out;
  out.text = "one run, two versions interleaved in the same rounds: A = the first tag, B = the second\n";
  out.comparisons = compare_runs(pairs.a, pairs.b);
  out.text += comparison_table(out.comparisons);
  add_costs(pairs.a, pairs.b, std::nullopt, &out);  // one run: no spread between runs to add
  apply_gate(&out, thresholds);
  return out;
}

Result<DiffOutcome> diff_runs(const std::string& run_a, const std::string& run_b, const Thresholds& thresholds,
                              bool relative, bool force, const std::optional<std::string>& history) {
  auto a = read_results_csv(run_a + "/results.csv");
  if (!a) return with_context(a.error(), "run A");
  auto b = read_results_csv(run_b + "/results.csv");
  if (!b) return with_context(b.error(), "run B");
  DiffOutcome out;
  // Without provenance there is nothing to say whether the runs are comparable at all.
  auto env_a = read_environment(run_a, /*required=*/true);
  if (!env_a) return with_context(env_a.error(), "run A");
  auto env_b = read_environment(run_b, /*required=*/true);
  if (!env_b) return with_context(env_b.error(), "run B");
  const nlohmann::json& ea = *env_a;
  const nlohmann::json& eb = *env_b;
  // A different backend or accelerator measures a different machine: refused.
  for (const char* key : {"/backend", "/accel"}) {
    nlohmann::json::json_pointer p(key);
    auto text_at = [&p](const nlohmann::json& j) -> std::string {
      if (!j.contains(p)) return "";
      return j.at(p).is_string() ? j.at(p).get<std::string>() : j.at(p).dump();
    };
    if (text_at(ea) != text_at(eb))
      return make_error(
          std::string("the runs differ in ") + (key + 1) + ": '" + text_at(ea) + "' vs '" + text_at(eb) + "'",
          "compare runs made on the same backend (netns with netns, vm/kvm with vm/kvm)");
  }
  auto differences = provenance_differences(ea, eb);
  out.text = provenance_text(differences);
  out.provenance = differences;
  // Another topology or pinning measures another thing: a verdict would compare setups, not
  // builds. Refused unless the user says that is the question (--force).
  std::vector<std::string> refusing;
  for (const auto& d : differences)
    if (d.refuses) refusing.push_back(d.what);
  if (!refusing.empty() && !force) {
    std::string what;
    for (const auto& r : refusing) what += (what.empty() ? "" : " and ") + r;
    return make_error(
        "the runs differ in " + what + ": their verdicts would compare two setups, not two builds",
        "measure both with the same topology file and pinning (vpnlab run --from RUN_A repeats run A), or give --force "
        "to compare them anyway (the differences are printed above the verdicts)");
  }
  std::vector<SampleRow> rows_a = std::move(a.value()), rows_b = std::move(b.value());
  for (const auto& line : pair_versions_across_runs(&rows_a, &rows_b)) out.text += line + "\n";
  if (relative) {
    out.text += "relative: each product's samples divided by its own run's baseline of the same round\n";
    out.comparisons = compare_runs(relative_to_baseline(rows_a), relative_to_baseline(rows_b));
  } else {
    out.comparisons = compare_runs(rows_a, rows_b);
  }
  std::string between;
  if (history && !rows_a.empty() && !rows_b.empty())
    between = add_between_run_spreads(*history, rows_a.front().run_id, rows_b.front().run_id,
                                      relative ? "ratio" : "gbps", true, &out.comparisons);
  out.text += comparison_table(out.comparisons) + between;
  if (!relative) note_baseline_moves(run_a, run_b, &out);
  add_costs(rows_a, rows_b, history, &out);
  apply_gate(&out, thresholds);
  return out;
}

}  // namespace vpnlab
