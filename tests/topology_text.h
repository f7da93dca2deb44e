// The topology text unit tests parse to try one [[bench.test]]: three nodes on one link,
// the baseline, and test "t" from node a with `body` as its other keys.
#pragma once
#include <string>

namespace vpnlab {

inline std::string topology_with_test(const std::string& body) {
  return "[lab]\nname = \"x\"\n[overlay]\nsubnet = \"10.77.0.0/24\"\nmtu = 1400\n"
         "[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[node]]\nname = \"c\"\n"
         "[[link]]\nname = \"lan\"\nnodes = [\"a\", \"b\", \"c\"]\nsubnet = \"192.168.77.0/24\"\n"
         "[bench]\nproducts = [\"baseline\"]\n[[bench.test]]\nname = \"t\"\nclient = \"a\"\n" +
         body;
}

}  // namespace vpnlab
