// vpnlab-crr: the crr and rr tests' generator (lab/generators/crr.h), run in a node like iperf3.
//   vpnlab-crr server PORT SIZE                   a new connection per transaction (crr)
//   vpnlab-crr client ADDRESS PORT SIZE SECONDS   (prints one JSON line)
//   vpnlab-crr rr-server PORT SIZE                transactions over one connection (rr)
//   vpnlab-crr rr-client ADDRESS PORT SIZE SECONDS
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "lab/generators/crr.h"

namespace vpnlab {
namespace {
int usage() {
  std::fprintf(stderr, "usage: vpnlab-crr [rr-]server PORT SIZE | vpnlab-crr [rr-]client ADDRESS PORT SIZE SECONDS\n");
  return 2;
}
bool number(const char* s, double lo, double hi, double* out) {
  char* end = nullptr;
  *out = std::strtod(s, &end);
  return end && *end == '\0' && end != s && *out >= lo && *out <= hi;
}

int crr_main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  double port = 0, size = 0, seconds = 0;
  const bool rr = mode.rfind("rr-", 0) == 0;
  const std::string role = rr ? mode.substr(3) : mode;
  if (role == "server" && argc == 4 && number(argv[2], 1, 65535, &port) && number(argv[3], 1, 1 << 20, &size)) {
    auto s = rr ? rr_serve(static_cast<int>(port), static_cast<int>(size))
                : crr_serve(static_cast<int>(port), static_cast<int>(size));
    std::fprintf(stderr, "vpnlab-crr: %s\n", s ? "stopped" : s.error().message.c_str());
    return 1;
  }
  if (role == "client" && argc == 6 && number(argv[3], 1, 65535, &port) && number(argv[4], 1, 1 << 20, &size) &&
      number(argv[5], 0.1, 3600, &seconds)) {
    CrrResult r = (rr ? rr_run : crr_run)(argv[2], static_cast<int>(port), static_cast<int>(size), seconds);
    std::cout << crr_json(r) << std::flush;
    return r.transactions > 0 ? 0 : 1;
  }
  return usage();
}

}  // namespace
}  // namespace vpnlab

int main(int argc, char** argv) { return vpnlab::crr_main(argc, argv); }
