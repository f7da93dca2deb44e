#include "lab/diff_command.h"

#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "lab/fs_util.h"

namespace vpnlab {

namespace {

nlohmann::json environment_of(const std::string& run) {
  auto j = nlohmann::json::parse(read_file_text(run + "/environment.json"), nullptr, false);
  return j.is_discarded() ? nlohmann::json::object() : j;
}

std::string text_at(const nlohmann::json& j, const nlohmann::json::json_pointer& p) {
  if (!j.contains(p)) return "";
  const auto& v = j.at(p);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

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

Result<DiffOutcome> diff_runs(const std::string& run_a, const std::string& run_b, std::optional<double> threshold, bool relative) {
  auto a = read_results_csv(run_a + "/results.csv");
  if (!a) return with_context(a.error(), "run A");
  auto b = read_results_csv(run_b + "/results.csv");
  if (!b) return with_context(b.error(), "run B");
  DiffOutcome out;
  nlohmann::json ea = environment_of(run_a), eb = environment_of(run_b);
  // A different backend or accelerator measures a different machine: refused.
  for (const char* key : {"/backend", "/accel"}) {
    nlohmann::json::json_pointer p(key);
    if (text_at(ea, p) != text_at(eb, p))
      return make_error(std::string("the runs differ in ") + (key + 1) + ": '" + text_at(ea, p) + "' vs '" + text_at(eb, p) + "'",
                        "compare runs made on the same backend (netns with netns, vm/kvm with vm/kvm)");
  }
  // Other differences are what a comparison may be about, but the reader must see them.
  for (const char* key : {"/kernel/release", "/cpu/model", "/cpu/count", "/vpnlab_version", "/bench/pinned", "/bench/rps", "/bench/interleaved",
                          "/overlay/mtu"}) {
    nlohmann::json::json_pointer p(key);
    if (text_at(ea, p) != text_at(eb, p)) out.text += "note: " + std::string(key + 1) + " differs: '" + text_at(ea, p) + "' vs '" + text_at(eb, p) + "'\n";
  }
  if (relative) {
    out.text += "relative: each product's samples divided by its own run's baseline of the same round\n";
    out.comparisons = compare_runs(relative_to_baseline(a.value()), relative_to_baseline(b.value()));
  } else {
    out.comparisons = compare_runs(a.value(), b.value());
  }
  out.text += comparison_table(out.comparisons);
  if (threshold) {
    for (const auto& c : out.comparisons)
      if (fails_threshold(c, *threshold)) {
        out.gate_failed = true;
        char line[256];
        snprintf(line, sizeof line, "GATE: %s / %s is slower by more than %.0f %% (B/A at most %.3f)\n", c.product.c_str(), c.test.c_str(),
                 100 * *threshold, c.ci_high);
        out.text += line;
      }
    if (!out.gate_failed) out.text += "gate: nothing is slower by more than " + std::to_string(static_cast<int>(100 * *threshold)) + " %\n";
  }
  return out;
}

}  // namespace vpnlab
