// What `run --from` and `run --resume` repeat of an earlier run, read once from its
// environment.json into one type. Both used to re-type the same fields key by key, each with
// its own list of what must be there, and the resume read the file three times.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

struct RecordedRun {
  std::string file;  // RUN_DIR/environment.json, as messages name it
  std::vector<std::string> requested_products;
  std::vector<std::string> tests;  // bench.tests; empty: every test (runs before it was recorded)
  int samples = 0;
  double duration_s = 0;
  double warmup_s = 0;
  bool pinned = true;
  bool interleaved = true;
  std::optional<double> precision;  // adaptive sampling's target; none: a fixed count
  double max_time_s = 0;
  std::map<std::string, std::string> product_versions;  // products.NAME.version
};

// A rerun repeats a run exactly; a resume adds rows that must measure what the first ones did.
enum class Repeat { rerun, resume };

// The record's fields, typed (read_environment's checks), present (a repeat never fills a
// default in) and within vpnlab's bounds; each refusal names the file and the field.
Result<RecordedRun> read_recorded_run(const std::string& run_dir, Repeat why);

}  // namespace vpnlab
