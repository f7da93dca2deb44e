// One backend's entry: what the use cases (lab/app) do differently for netns, vm and hosts,
// each entry defined in its backend's own folder (lab/backends/NAME/NAME_entry.cpp) and
// listed once in lab/app/backends.cpp. What the model allows on a backend is data beside
// it, in lab/model/backend_traits.h.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"
#include "lab/model/plan.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

// What an entry may need from the caller: where products and helpers are, and the fd that
// becomes readable on Ctrl-C (every wait polls it).
struct BackendContext {
  std::string products_dir;  // products_path(): where product folders are looked up
  std::string bin_dir;       // the helpers (vpnlab-agent, vpnlab-vmhost, vpnlab-host-agent)
  int interrupt_fd = -1;
};

struct BackendEntry {
  std::string name;
  // run: the backend's own preparation (image and accelerator, the hosts' checks), then the
  // factory that builds a round's nodes.
  Result<RuntimeFactory> (*prepare_run)(const Plan& plan, const BackendContext& ctx) = nullptr;
  // up: keeps the topology on this machine; the names of what it keeps here (namespaces),
  // how to reach a node, and exec into one. keep_up nullptr: `up` is refused, saying why.
  Status (*keep_up)(const Plan& plan, const BackendContext& ctx) = nullptr;
  const char* no_keep_up = "";
  std::vector<std::string> (*kept_namespaces)(const Plan& plan) = nullptr;
  std::string (*node_hint)(const Plan& plan, const PlanNode& node, const std::string& file) = nullptr;
  // The command's exit status; an error when it could not run or was interrupted.
  Result<int> (*exec)(const Plan& plan, const PlanNode& node, const std::vector<std::string>& argv,
                      int interrupt_fd) = nullptr;
  // What lives beyond this machine (nullptr: nothing; `cleanup` and `doctor` without a file
  // cover this machine). cleanup FILE: what it removed there, a line each; doctor FILE: each
  // remote machine as a run would find it (an "error" key names one that cannot be used).
  Result<std::vector<std::string>> (*cleanup_remote)(const Plan& plan, const BackendContext& ctx,
                                                     bool dry_run) = nullptr;
  nlohmann::json (*probe_remote)(const Plan& plan, const BackendContext& ctx) = nullptr;
};

}  // namespace vpnlab
