// The version order of history trends: two printed versions (split at the first newline)
// compare antisymmetrically, and each equals itself.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/history/version_order.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const size_t nl = text.find('\n');
  const std::string a = text.substr(0, nl), b = nl == std::string::npos ? "" : text.substr(nl + 1);
  const int ab = vpnlab::compare_versions(a, b), ba = vpnlab::compare_versions(b, a);
  vpnlab::fuzz_check((ab > 0) == (ba < 0) && (ab == 0) == (ba == 0), "compare_versions is antisymmetric");
  vpnlab::fuzz_check(vpnlab::compare_versions(a, a) == 0, "a version equals itself");
  (void)vpnlab::version_token(a);
  return 0;
}
