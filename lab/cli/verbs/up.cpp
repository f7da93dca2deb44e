// `vpnlab up FILE`: the topology built and left up until `vpnlab down`.
#include <iostream>

#include "lab/app/kept_lab.h"
#include "lab/app/run_request.h"
#include "lab/base/fs_util.h"
#include "lab/cli/verbs/verb.h"
#include "lab/model/install_layout.h"
#include "lab/run/interrupt.h"

namespace vpnlab {
namespace {

int cmd_up(const Args& a) {
  if (a.positional.size() != 1) return usage_error("up", "give one topology file");
  if (!need_root("up")) return kExitError;
  auto plan = plan_request(request_of(a, a.positional[0]));
  if (!plan) return fail(plan.error());
  if (auto s = bring_up(*plan, a.positional[0], helper_dir(own_binary_dir())); !s) {
    if (!interrupted()) return fail(s.error());
    std::cerr << "vpnlab: interrupted: lab '" << plan->lab << "' was removed again\n";
    return kExitInterrupted;
  }
  return 0;
}

}  // namespace

extern const Verb kUpVerb = {
    "up",
    "up FILE [--backend B]",
    "Builds the topology and leaves it up until 'vpnlab down': namespaces, links and addresses, or with\n"
    "backend \"vm\" the guests, booted and configured (addresses, MTU, routes, shaping). No product is started.",
    {"--backend"},
    cmd_up};

}  // namespace vpnlab
