// Topology TOML through the reader and its checks (names, links, bench, variants' sysctl
// keys and nft text, hosts' ssh options): any text is a topology or a located error.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/model/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto t = vpnlab::parse_topology_text(text, "fuzz.toml");
  if (!t) vpnlab::fuzz_check(!t.error().message.empty(), "an error says what is wrong");
  return 0;
}
