// A host's ssh options, destination, host key and agent path (one per line): the policy
// either names the bad item or accepts the list.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "lab/model/ssh_policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  size_t bad = 0;
  const std::string problem = vpnlab::ssh_options_problem(lines, &bad);
  if (!problem.empty()) vpnlab::fuzz_check(bad < lines.size(), "the bad item is one of the list");
  for (const auto& line : lines) {
    (void)vpnlab::ssh_destination_problem(line);
    (void)vpnlab::host_key_problem(line);
    (void)vpnlab::agent_path_problem(line);
  }
  return 0;
}
