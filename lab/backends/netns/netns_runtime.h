// The netns backend: a plan's nodes as network namespaces on this host, linked by veths
// and bridges (live_topology.h), driven through NodeRuntime.
#pragma once
#include <memory>
#include <string>

#include "lab/model/plan.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

// A RuntimeFactory: builds the plan's namespaces, links and addresses.
Result<std::unique_ptr<NodeRuntime>> build_netns_runtime(const Plan& plan, const std::string& run_dir,
                                                         int interrupt_fd);

}  // namespace vpnlab
