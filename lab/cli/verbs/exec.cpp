// `vpnlab exec FILE NODE -- CMD`: a command in a node of a topology made by `up`.
#include <string>
#include <vector>

#include "lab/app/kept_lab.h"
#include "lab/cli/verbs/verb.h"

namespace vpnlab {
namespace {

int cmd_exec(const Args& a) {
  if (a.positional.size() < 3)
    return usage_error("exec", "give the topology file given to 'up', a node and a command (after --)");
  if (!need_root("exec")) return kExitError;
  auto status = exec_in_node(a.positional[0], a.positional[1],
                             std::vector<std::string>(a.positional.begin() + 2, a.positional.end()));
  if (!status) return fail(status.error());
  return *status;
}

}  // namespace

extern const Verb kExecVerb = {
    "exec",
    "exec FILE NODE -- CMD [ARG]...",
    "Runs a command in a node of a topology made by 'up' and exits with its status. In a namespace the\n"
    "command takes over this process (stdin and terminal included); in a guest its agent runs it and its output is\n"
    "printed when it ends (no stdin).",
    {},
    cmd_exec};

}  // namespace vpnlab
