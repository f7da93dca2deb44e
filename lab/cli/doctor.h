// `vpnlab doctor`: what this machine can do for a benchmark, probed, and what that means
// for the results.
#pragma once
#include <string>

namespace vpnlab {

// Needs root for the network probes (they create a scratch lab namespace).
std::string doctor_report(const std::string& products_dir);

}  // namespace vpnlab
