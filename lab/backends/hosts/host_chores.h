// What the host agent does outside a built part (lab/backends/hosts/host_chores.cpp); each takes the
// request and returns the answer, {"ok": false, "error", "hint"} on failure.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"
#include "lab/model/plan.h"

namespace vpnlab {

// NIC ledgers of the parts this host holds: which NIC each node holds, on disk while the
// part is up, so that `vpnlab cleanup FILE` can return a NIC a killed agent left.
inline constexpr const char* kNicLedgerDir = "/run/vpnlab/host-nics";
std::string nic_ledger_path(const Plan& part);

// What environment.json records of a host's NIC: driver, link speed, offloads.
nlohmann::json host_nic_facts(const std::string& nic);
// peek {path}: the first 4 KB; put {path, mode, data (base64)}; get {path}.
nlohmann::json host_peek(const nlohmann::json& req);
nlohmann::json host_put(const nlohmann::json& req);
nlohmann::json host_get(const nlohmann::json& req);
// cleanup {dry_run, host, lab, suffixes}: NICs back, then that lab's namespaces of this host.
nlohmann::json host_cleanup(const nlohmann::json& req);
// products {products: [{name, binaries, version}]}: a missing program, or the version.
nlohmann::json host_products(const nlohmann::json& req);
// cpu: system CPU times, total and per CPU.
nlohmann::json host_cpu();

}  // namespace vpnlab
