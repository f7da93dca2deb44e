// One entry per backend: everything the CLI does differently for netns, vm and hosts, in
// one table instead of `backend == "vm"` branches across the verbs. model's backend_names()
// is the list of names a file may give; each has an entry here (a unit test checks).
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/model/plan.h"
#include "lab/run/run_options.h"

namespace vpnlab {

struct BackendEntry {
  std::string name;  // its traits (what the model allows on it) are lab/model/backend_traits.cpp's
  // run: the backend's own preparation (image and accelerator, the hosts' checks), then the
  // factory that builds a round's nodes.
  Result<RuntimeFactory> (*prepare_run)(const Plan& plan, const RunOptions& opts, const std::string& bin_dir) = nullptr;
  // up: keeps the topology on this machine; the names of what it keeps here (namespaces),
  // how to reach a node, and exec into one. keep_up nullptr: `up` is refused, saying why.
  Status (*keep_up)(const Plan& plan, const std::string& bin_dir) = nullptr;
  const char* no_keep_up = "";
  std::vector<std::string> (*kept_namespaces)(const Plan& plan) = nullptr;
  std::string (*node_hint)(const Plan& plan, const PlanNode& node, const std::string& file) = nullptr;
  Result<int> (*exec)(const Plan& plan, const PlanNode& node, const std::vector<std::string>& argv) = nullptr;
};

const std::vector<BackendEntry>& backend_table();
// The entry of a backend name a plan carries (checked when the file was read).
const BackendEntry& backend_entry(const std::string& name);

}  // namespace vpnlab
