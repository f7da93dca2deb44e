// `vpnlab doctor`: what this machine can do for a benchmark, probed, and what that means
// for the results.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace vpnlab {

struct DoctorReport {
  std::string text;
  nlohmann::json json;  // the same rows for --json: kernel, network_features[], virtualisation[],
                        // machine[] ({name, state, detail}), products[], guest_only_products, meaning
};

// Needs root for the network probes (they create a scratch lab namespace).
DoctorReport doctor_report(const std::string& products_path);

}  // namespace vpnlab
