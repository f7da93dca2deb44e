// Whether a product can run here: its programs installed, the kernel features it needs
// present (probed in a scratch namespace), and the version it reports. Spawns processes,
// so it lives in the run layer, not beside the spec parser.
#pragma once
#include <string>
#include <vector>

#include "lab/model/product_spec.h"

namespace vpnlab {

// The first non-empty line a command prints on stdout ("iperf 3.12 (cJSON 1.7.15)"), run
// with a 5 s limit; empty if it cannot run.
std::string first_output_line(const std::vector<std::string>& argv);
// Where it keeps the output meanwhile: PREFIX<pid>-XXXXXX (and its LOG.cmd).
inline constexpr const char* kVersionProbePrefix = "/tmp/vpnlab-version-";

struct Availability {
  bool available = false;
  std::string reason;   // why not, naming the package to install
  std::string version;  // first line of the version command
};
// `backend` "vm": kernel features are not probed on this host (guests have their own).
Availability check_availability(const ProductSpec& spec, const std::string& backend = "netns");

}  // namespace vpnlab
