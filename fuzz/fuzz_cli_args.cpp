// The command line: the input's NUL-separated pieces are a verb's arguments (the first byte
// picks the verb). Every argv is parsed or refused as a usage error; a parsed one holds only
// values inside the bounds the option table states, and the run request built from it too.
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "lab/base/bounds.h"
#include "lab/cli/verbs/verb.h"

namespace {

void check_bounds(const vpnlab::Args& a) {
  using vpnlab::fuzz_check;
  if (a.samples)
    fuzz_check(*a.samples >= vpnlab::kMinSamples && *a.samples <= vpnlab::kMaxSamples, "--samples inside its bounds");
  if (a.duration_s)
    fuzz_check(*a.duration_s >= vpnlab::kMinSampleSeconds && *a.duration_s <= vpnlab::kMaxSampleSeconds,
               "--duration inside its bounds");
  if (a.precision)
    fuzz_check(*a.precision >= vpnlab::kMinPrecision && *a.precision <= vpnlab::kMaxPrecision,
               "--precision inside its bounds");
  if (a.max_time_s)
    fuzz_check(*a.max_time_s >= 1 && *a.max_time_s <= vpnlab::kMaxBudgetSeconds, "--max-time inside its bounds");
  if (a.min_rounds)
    fuzz_check(*a.min_rounds >= 2 && *a.min_rounds <= vpnlab::kMaxSamples, "--min-rounds inside its bounds");
  if (a.threshold) fuzz_check(*a.threshold >= 0 && *a.threshold < 1, "--threshold a fraction");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Usage errors are printed on std::cerr: here into a buffer, so the fuzzer's own report
  // (written to fd 2 directly) stays readable.
  static std::ostringstream sink;
  static std::streambuf* const kept = std::cerr.rdbuf(sink.rdbuf());
  (void)kept;
  sink.str("");
  if (size == 0) return 0;
  const auto& verbs = vpnlab::verb_table();
  const vpnlab::Verb* verb = verbs[data[0] % verbs.size()];
  std::vector<std::string> argv;
  std::string piece;
  for (size_t i = 1; i < size; ++i) {
    if (data[i] == 0) {
      argv.push_back(piece);
      piece.clear();
    } else {
      piece += static_cast<char>(data[i]);
    }
  }
  if (size > 1) argv.push_back(piece);
  auto a = vpnlab::parse_args(verb->name, argv, verb->options, verb->own.texts);
  if (!a) {
    vpnlab::fuzz_check(sink.str().find("vpnlab: error: ") != std::string::npos,
                       "a refused command line is a usage error");
    return 0;
  }
  check_bounds(*a);
  // The verb's own options (--nodes, --by, --budget, ...): parsed into its own struct, or
  // refused with a reason.
  if (verb->own.check) (void)verb->own.check(*a);
  (void)vpnlab::sampling_usage(*a, verb->name);
  const vpnlab::RunRequest r = vpnlab::request_of(*a, a->positional.empty() ? "" : a->positional[0]);
  vpnlab::fuzz_check(r.samples == a->samples && r.duration_s == a->duration_s, "the request carries what was parsed");
  return 0;
}
