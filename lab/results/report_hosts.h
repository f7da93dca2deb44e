// The report's parts for runs on the hosts backend: what each host was (environment.json
// "hosts") and the CPU each machine spent per Gbit (results.csv cpu_by_host).
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/record/results_csv.h"

namespace vpnlab {

// "h1:1.234;h2:0.987" -> {h1: 1.234, h2: 0.987}; malformed entries are skipped.
std::map<std::string, double> cpu_by_host(const std::string& field);

// One line per host: ssh destination, kernel, CPU, boot id, NIC and the products' versions.
std::vector<std::string> host_items(const nlohmann::json& env);

// Header + one row per product, test and machine: the median CPU-s per Gbit of its valid
// samples (empty when no row has a per-host figure).
std::vector<std::vector<std::string>> host_cpu_rows(const std::vector<SampleRow>& rows);

}  // namespace vpnlab
