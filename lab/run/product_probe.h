// Whether a product can run here: its programs installed, the kernel features it needs
// present (probed in a scratch namespace), and the version it reports. Spawns processes,
// so it lives in the run layer, not beside the spec parser.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "lab/base/process.h"
#include "lab/model/product_spec.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

struct Availability {
  bool available = false;
  std::string reason;   // why not, naming the package to install
  std::string version;  // first line of the version command
};
// The kernel features of the machine a product will run on, found by trying them (the
// backend's: lab/kernel/capabilities.h on this host). Empty: not probed here (guests have their
// own kernel, and the bring-up there still refuses an interface of the wrong kind).
using CapabilityProbe = std::function<std::vector<Capability>()>;
// `in_guests`: the products run in guests, whose kernel a kernel product's version is.
Availability check_availability(const ProductSpec& spec, const CapabilityProbe& probe = {}, bool in_guests = false);

}  // namespace vpnlab
