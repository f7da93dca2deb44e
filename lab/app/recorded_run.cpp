#include "lab/app/recorded_run.h"

#include <nlohmann/json.hpp>

#include "lab/base/bounds.h"
#include "lab/base/json_number.h"
#include "lab/results/run_files.h"

namespace vpnlab {

namespace {

const char* const kMeasureAnew = "measure anew with 'vpnlab run FILE'";

// The fields a repeat cannot do without, as JSON pointers, and how a missing one is named.
struct Needed {
  const char* pointer;
  const char* named;
};

Status check_present(const nlohmann::json& env, const std::string& file, Repeat why) {
  static const std::vector<Needed> rerun = {{"/schema", "schema"},
                                            {"/requested_products", "requested_products"},
                                            {"/bench", "bench section (samples, duration, pinning, order)"},
                                            {"/bench/samples", "bench.samples"},
                                            {"/bench/duration_s", "bench.duration_s"},
                                            {"/bench/pinned", "bench.pinned"},
                                            {"/bench/interleaved", "bench.interleaved"}};
  static const std::vector<Needed> resume = {{"/requested_products", "requested_products"},
                                             {"/bench/samples", "bench.samples"},
                                             {"/bench/duration_s", "bench.duration_s"},
                                             {"/bench/warmup_s", "bench.warmup_s"},
                                             {"/bench/pinned", "bench.pinned"},
                                             {"/bench/interleaved", "bench.interleaved"}};
  const char* unmet = why == Repeat::rerun ? ": the run cannot be repeated exactly"
                                           : ": the resumed rows could not be shown to measure what the first ones did";
  for (const auto& n : why == Repeat::rerun ? rerun : resume)
    if (!env.contains(nlohmann::json::json_pointer(n.pointer)))
      return make_error(file + ": no " + n.named + unmet, kMeasureAnew);
  return ok_status();
}

Status check_bounds(const RecordedRun& r, const nlohmann::json& bench) {
  if (r.samples < kMinSamples || r.samples > kMaxSamples || r.duration_s < kMinSampleSeconds ||
      r.duration_s > kMaxSampleSeconds)
    return make_error(r.file + ": bench.samples " + bench["samples"].dump() + " or bench.duration_s " +
                          bench["duration_s"].dump() + " is out of range",
                      "restore the file from the run, or " + std::string(kMeasureAnew));
  if (r.precision && (*r.precision < kMinPrecision || *r.precision > kMaxPrecision || r.max_time_s < 0 ||
                      r.max_time_s > kMaxBudgetSeconds))
    return make_error(r.file + ": bench.precision or bench.max_time_s is out of range",
                      "restore the file from the run, or " + std::string(kMeasureAnew));
  return ok_status();
}

}  // namespace

Result<RecordedRun> read_recorded_run(const std::string& run_dir, Repeat why) {
  auto read = read_environment(run_dir, /*required=*/true);
  if (!read) return with_context(read.error(), (why == Repeat::rerun ? "cannot rerun " : "cannot resume ") + run_dir);
  const nlohmann::json& env = *read;
  RecordedRun r;
  r.file = run_dir + "/environment.json";
  if (auto s = check_present(env, r.file, why); !s) return s.error();
  // Present and typed (read_environment): what follows only converts.
  const nlohmann::json& bench = env["bench"];
  r.requested_products = env["requested_products"].get<std::vector<std::string>>();
  if (bench.contains("tests") && bench["tests"].is_array())
    for (const auto& t : bench["tests"])
      if (t.is_string()) r.tests.push_back(t.get<std::string>());
  r.samples = whole_number_or(bench, "samples", 0);  // 0: not a whole number, refused by check_bounds
  r.duration_s = bench["duration_s"].get<double>();
  r.warmup_s = bench.contains("warmup_s") ? bench["warmup_s"].get<double>() : 0;
  r.pinned = bench["pinned"].get<bool>();
  r.interleaved = bench["interleaved"].get<bool>();
  if (bench.contains("precision") && bench["precision"].is_number()) {
    r.precision = bench["precision"].get<double>();
    r.max_time_s =
        bench.contains("max_time_s") && bench["max_time_s"].is_number() ? bench["max_time_s"].get<double>() : 0;
  }
  if (auto s = check_bounds(r, bench); !s) return s.error();
  if (env.contains("products"))
    for (const auto& [name, p] : env["products"].items())
      if (p.contains("version")) r.product_versions[name] = p["version"].get<std::string>();
  return r;
}

}  // namespace vpnlab
