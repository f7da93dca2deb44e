// `vpnlab validate FILE`: a topology file and the products it names checked, nothing made.
#include <iostream>

#include "lab/app/run_request.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"

namespace vpnlab {
namespace {

int cmd_validate(const Args& a) {
  if (a.positional.size() != 1) return usage_error("validate", "give one topology file");
  auto plan = plan_request(request_of(a, a.positional[0]));
  if (!plan) return fail(plan.error());
  if (a.json) {
    std::cout << validate_json(a.positional[0], *plan).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";  // a path need not be UTF-8
    return 0;
  }
  std::cout << a.positional[0] << ": ok (" << plan->nodes.size() << " nodes, " << plan->veths.size() << " veth pairs, "
            << plan->bridges.size() << " bridges, " << plan->tests.size() << " tests)\n";
  return 0;
}

}  // namespace

extern const Verb kValidateVerb = {
    "validate",
    "validate FILE [--product NAME]... [--backend B] [--json]",
    "Checks a topology file and the products it names (every template rendered with stand-in values);\n"
    "creates nothing, needs no root.",
    {"--product", "--backend", "--json"},
    cmd_validate};

}  // namespace vpnlab
