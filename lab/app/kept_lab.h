// `vpnlab up`, `exec` and `down`: a topology kept beyond the command that made it, in
// namespaces or in guests, until `down` (or `cleanup`) removes it. Its state file (kept =
// true) is what `down`, `exec`, `run` and `cleanup` find it by.
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/model/plan.h"

namespace vpnlab {

// Refuses when the plan's lab is already up: its namespaces (or guests) would collide.
Status refuse_kept_lab(const std::string& lab, const std::string& file);

// Builds the lab (namespaces, or guests with `backend = "vm"`) and leaves it up; prints
// how to reach each node. Holds the run lock while it builds.
Status bring_up(const Plan& plan, const std::string& file, const std::string& bin_dir);

// Removes every kept lab of this name; prints what it removed. False when none was up.
Result<bool> bring_down(const std::string& lab);

// Runs argv in `node` of the kept lab and returns its exit status: in a namespace, this
// process becomes the command (stdin, a terminal, signals all its own); in a guest, the
// agent runs it and its output is printed when it ends (no stdin).
// `file` is the topology given to `up` (the kept lab's names are planned again from it).
Result<int> exec_in_node(const std::string& file, const std::string& node, const std::vector<std::string>& argv);

}  // namespace vpnlab
