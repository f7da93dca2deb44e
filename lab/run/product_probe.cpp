#include "lab/run/product_probe.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "lab/base/fs_util.h"
#include "lab/base/process.h"

namespace vpnlab {

Availability check_availability(const ProductSpec& spec, const CapabilityProbe& probe, bool in_guests) {
  Availability a;
  std::string pkgs;
  for (const auto& p : spec.packages) pkgs += (pkgs.empty() ? "" : " ") + p;
  if (!spec.not_built.empty()) {  // its registry build: the message says how to make it
    a.reason = spec.not_built;
    return a;
  }
  for (const auto& bin : spec.binaries) {
    if (find_program(bin).empty()) {
      a.reason = pkgs.empty() ? "'" + bin + "' is not installed and not in Debian: bring your own with --product " +
                                    spec.name + "@TAG=/path/to/" + bin
                              : "'" + bin + "' is not installed (apt-get install --no-install-recommends " + pkgs + ")";
      return a;
    }
  }
  if (!spec.requires_caps.empty() && probe) {
    if (geteuid() != 0) {
      a.reason = "needs kernel features (" + spec.requires_caps.front() + "): probing them needs root";
      return a;
    }
    for (const auto& c : probe())
      if (!c.available &&
          std::find(spec.requires_caps.begin(), spec.requires_caps.end(), c.name) != spec.requires_caps.end()) {
        a.reason = "this kernel lacks " + c.name + " (" + c.detail + ")";
        return a;
      }
  }
  a.available = true;
  a.version = spec.version_argv.empty() ? "-" : first_output_line(spec.version_argv);
  if (!spec.build_version.empty() && a.version.find(spec.build_version) == std::string::npos)
    a.version = spec.build_version + " (the build's version; the binary prints '" + a.version + "')";
  // A kernel product's version is the kernel it runs in: in guests, theirs, not this host's.
  if (in_guests && spec.version_argv == std::vector<std::string>{"uname", "-r"})
    a.version = "the guests' kernel (environment.json: guests)";
  return a;
}

}  // namespace vpnlab
