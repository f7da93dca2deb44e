// A host's part of a plan (lab/model/plan.h, plan_for_host) as JSON, the form the controller
// sends it to the host's agent in: what the agent builds (namespaces, bridges, veths, NICs,
// routes) and nothing of the bench. Both ends are this same build (hello checks).
#pragma once
#include <nlohmann/json.hpp>

#include "lab/base/result.h"
#include "lab/model/plan.h"

namespace vpnlab {

nlohmann::json host_part_json(const Plan& part);
// The part back; every field is checked (a malformed request is an error, not an abort).
Result<Plan> host_part_from_json(const nlohmann::json& j);

}  // namespace vpnlab
