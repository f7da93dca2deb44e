// Finds and removes what lab runs left on the machine: namespaces named with the lab
// prefix (and only those), the processes inside them, and stale run state files.
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

struct CleanupReport {
  std::vector<std::string> actions;  // one line per object, "removed ..." or "would remove ..."
};

// `only`: restrict to these namespace names (from a state file); empty = every lab namespace.
Result<CleanupReport> cleanup_lab_objects(bool dry_run, const std::vector<std::string>& only = {});

// Refuses (with the names and `vpnlab cleanup` as the hint) when lab namespaces of a run
// that is gone are still there; `up`'s kept labs are not debris. Needs the run lock.
Status refuse_debris();

}  // namespace vpnlab
