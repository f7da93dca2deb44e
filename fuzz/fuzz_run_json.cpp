// A run directory's JSON files as every reader meets them (`report`, `diff`, `history`,
// `run --from`): the input as environment.json and as audit.json. Text that is not JSON, too
// deep, or has a field of the wrong type is refused with the file's name; what the checks
// let through, every reader of that file reads without an exception (an uncaught one aborts
// here), and a run differs from itself in nothing. summary.json is read back only by
// `run --json`, as the file it just wrote, through parse_json_bounded (fuzz_json_bounded).
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/base/json_depth.h"
#include "lab/record/achieved_text.h"
#include "lab/results/link_ceiling.h"
#include "lab/results/provenance.h"
#include "lab/results/report.h"
#include "lab/results/report_hosts.h"
#include "lab/results/run_files.h"
#include "lab/results/sampling_text.h"

namespace {

void read_environment_as_readers_do(const nlohmann::json& env) {
  (void)vpnlab::method_items(env);
  (void)vpnlab::host_items(env);
  (void)vpnlab::sampling_line(env);
  (void)vpnlab::link_shares({}, env);
  (void)vpnlab::comparability_text(env);
  vpnlab::fuzz_check(vpnlab::comparability_key(env) == vpnlab::comparability_key(env),
                     "the comparability key is a function");
  for (const auto& d : vpnlab::provenance_differences(env, env))
    vpnlab::fuzz_check(!d.refuses, "a run is comparable with itself: " + d.what);
  if (env.contains("achieved_paths") && env["achieved_paths"].is_object())
    for (const auto& [link, path] : env["achieved_paths"].items()) {
      (void)vpnlab::achieved_text(path);
      (void)vpnlab::achieved_alike(path, path);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!vpnlab::json_nesting_problem(text).empty()) return 0;  // refused before parsing, as read_json_file does
  const nlohmann::json j = vpnlab::parse_json_bounded(text);
  if (j.is_discarded()) return 0;
  if (auto s = vpnlab::check_environment(j, "environment.json"); s) {
    read_environment_as_readers_do(j);
  } else {
    vpnlab::fuzz_check(s.error().message.rfind("environment.json", 0) == 0, "a refusal names the file");
  }
  if (auto s = vpnlab::check_audit(j, "audit.json"); s) {
    (void)vpnlab::audit_warnings(j);
  } else {
    vpnlab::fuzz_check(s.error().message.rfind("audit.json", 0) == 0, "a refusal names the file");
  }
  return 0;
}
