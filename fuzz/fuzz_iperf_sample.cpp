// A raw iperf3 sample (its JSON), as report and the runner read it.
#include <cmath>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/run/iperf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto s = vpnlab::parse_iperf_json(std::string(reinterpret_cast<const char*>(data), size));
  if (s)
    vpnlab::fuzz_check(std::isfinite(s->gbps) && s->gbps >= 0, "a parsed sample's figure is finite and not negative");
  return 0;
}
