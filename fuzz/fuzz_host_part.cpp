// The agent's end of the channel: the part of a plan a host's agent is asked to build (its
// namespaces, bridges, veths, NICs and routes), as the controller sends it. Any JSON is a
// part or an error, never an exception; a part taken is sent back in the same form.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/backends/hosts/plan_wire.h"
#include "lab/base/json_depth.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json j = vpnlab::parse_json_bounded(text);
  if (j.is_discarded()) return 0;
  auto part = vpnlab::host_part_from_json(j);
  if (!part) {
    vpnlab::fuzz_check(!part.error().message.empty(), "a refused part says why");
    return 0;
  }
  const nlohmann::json sent = vpnlab::host_part_json(*part);
  auto again = vpnlab::host_part_from_json(sent);
  vpnlab::fuzz_check(again.ok(), "a part sent is taken: " + (again ? std::string() : again.error().message));
  vpnlab::fuzz_check(vpnlab::host_part_json(*again) == sent, "a part survives the wire unchanged");
  return 0;
}
