// Internal to make_plan: its parts in separate files.
#pragma once
#include <string>

#include "lab/model/plan.h"

namespace vpnlab {

// The first link both nodes are on ("" if none).
std::string shared_link(const PlanNode& a, const PlanNode& b);
// A node the plan has (its name was checked when the topology was read).
PlanNode& node_ref(Plan* plan, const std::string& name);
Error plan_error(const Topology& topo, SourcePos pos, std::string message, std::string hint);
// Fills vpn/gateway/carrier/sites, the lab's routes and each test's underlay links.
Status plan_routing(const Topology& topo, Plan* plan);
// [[chain]]s: their hops, the routes along them, each test's first underlay link.
Status plan_chains(const Topology& topo, Plan* plan);
// Computes cpus/load_cpus a node lacks (or clears all with no_pin) and notes what is shared.
void plan_pinning(int cpu_count, bool no_pin, Plan* plan);
// Every test's sending and receiving nodes that share a CPU, as warnings.
std::vector<std::string> sender_receiver_sharing(const Plan& plan);

}  // namespace vpnlab
