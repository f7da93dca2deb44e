// The one parse of outside JSON: too deep is refused before a value is built; what parses is
// dumped and parsed again to the same value.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/base/json_depth.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string problem;
  auto j = vpnlab::parse_json_bounded(text, &problem);
  if (j.is_discarded()) {
    vpnlab::fuzz_check(!problem.empty(), "a refused text says why");
    return 0;
  }
  vpnlab::fuzz_check(vpnlab::json_nesting_problem(text).empty(), "what parsed nests at most 64 deep");
  const std::string dumped = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto back = vpnlab::parse_json_bounded(dumped);
  vpnlab::fuzz_check(!back.is_discarded(), "a dumped value parses again");
  vpnlab::fuzz_check(back.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) == dumped,
                     "and dumps the same");
  return 0;
}
