// What a fuzz target holds besides "does not crash": a property that fails loudly (abort, so
// libFuzzer and the replay driver both keep the input as a crash).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

namespace vpnlab {

inline void fuzz_check(bool holds, const std::string& what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property failed: %s\n", what.c_str());
  std::abort();
}

}  // namespace vpnlab
