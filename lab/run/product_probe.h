// Whether a product can run here: its programs installed, the kernel features it needs
// present (probed in a scratch namespace), and the version it reports. Spawns processes,
// so it lives in the run layer, not beside the spec parser.
#pragma once
#include <string>
#include <vector>

#include "lab/base/process.h"
#include "lab/model/product_spec.h"

namespace vpnlab {


struct Availability {
  bool available = false;
  std::string reason;   // why not, naming the package to install
  std::string version;  // first line of the version command
};
// `backend` "vm": kernel features are not probed on this host (guests have their own).
Availability check_availability(const ProductSpec& spec, const std::string& backend = "netns");

}  // namespace vpnlab
