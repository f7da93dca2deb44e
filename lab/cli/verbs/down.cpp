// `vpnlab down FILE`: a topology made by `up` removed.
#include <iostream>

#include "lab/app/kept_lab.h"
#include "lab/cli/verbs/verb.h"
#include "lab/model/topology.h"

namespace vpnlab {
namespace {

int cmd_down(const Args& a) {
  if (a.positional.size() != 1) return usage_error("down", "give the topology file given to 'up'");
  if (!need_root("down")) return kExitError;
  auto topo = load_topology(a.positional[0]);
  if (!topo) return fail(topo.error());
  auto found = bring_down(topo->lab_name);
  if (!found) return fail(found.error());
  if (!*found) std::cout << "down: lab '" << topo->lab_name << "' is not up; nothing to do\n";
  return 0;
}

}  // namespace

extern const Verb kDownVerb = {"down",
                               "down FILE",
                               "Removes a topology made by 'up' (guests too) and waits until the kernel released it.",
                               {},
                               cmd_down};

}  // namespace vpnlab
