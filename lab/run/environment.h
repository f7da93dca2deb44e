// Provenance written next to every run's results: what machine, kernel, CPU, tool and
// product versions, pinning and settings produced them.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/version.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/run/product_probe.h"

namespace vpnlab {

// Everything known before the run starts; `availability[i]` belongs to `specs[i]`.
// The [bench] sweep's points as environment.json and plan --json list them: each point's
// axis values, its underlay MTU and the overlay MTU it runs with.
nlohmann::json lab_points_json(const Plan& plan);
// The [[variant]]s as the file wrote them: rules, sysctls, offloads (environment.json).
nlohmann::json variants_json(const Plan& plan);

nlohmann::json describe_environment(const Plan& plan, const std::vector<ProductSpec>& specs,
                                    const std::vector<Availability>& availability);

// The end time and the steal counter at the end (EnvironmentRecord::set).
nlohmann::json run_end_fields();

}  // namespace vpnlab
