// `vpnlab cleanup [FILE]`: every vpnlab namespace and its processes removed (a hosts
// topology's hosts too).
#include <iostream>
#include <optional>

#include "lab/app/backends.h"
#include "lab/app/cleanup.h"
#include "lab/app/run_request.h"
#include "lab/base/fs_util.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"
#include "lab/model/install_layout.h"
#include "lab/run/run_state.h"

namespace vpnlab {
namespace {

struct CleanupOptions {
  bool dry_run = false;
};

const std::vector<Option<CleanupOptions>> kCleanupOptions = {
    {"--dry-run", "", "list what would be removed; remove nothing", set_flag<&CleanupOptions::dry_run>},
};

int cmd_cleanup(const Args& a) {
  CleanupOptions own;
  if (auto code = parse_own("cleanup", kCleanupOptions, a, &own)) return *code;
  if (a.positional.size() > 1)
    return usage_error("cleanup", "give at most one topology file (its hosts are cleaned too)");
  // A topology whose backend reaches other machines (hosts): those first, read before
  // anything local is touched.
  std::optional<Plan> remote_plan;
  if (!a.positional.empty()) {
    auto plan = plan_request(request_of(a, a.positional[0]));
    if (!plan) return fail(plan.error());
    if (backend_entry(plan->backend).cleanup_remote) remote_plan = std::move(*plan);
  }
  if (!need_root("cleanup")) return kExitError;
  auto lock = RunLock::acquire();
  if (!lock) return fail(lock.error());
  std::vector<std::string> remote;
  if (remote_plan) {
    const BackendContext ctx{products_path(own_binary_dir()), helper_dir(own_binary_dir()), -1};
    auto lines = backend_entry(remote_plan->backend).cleanup_remote(*remote_plan, ctx, own.dry_run);
    if (!lines) return fail(lines.error());
    remote = std::move(*lines);
  }
  auto report = cleanup_lab_objects(own.dry_run);
  if (!report) return fail(report.error());
  if (a.json) {
    std::cout << cleanup_json(own.dry_run, remote, report->actions)
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";  // a path need not be UTF-8
    return 0;
  }
  for (const auto& line : remote) std::cout << line << "\n";
  for (const auto& line : report->actions) std::cout << line << "\n";
  if (report->actions.empty()) std::cout << "cleanup: nothing of vpnlab's on this machine\n";
  return 0;
}

}  // namespace

extern const Verb kCleanupVerb = {
    "cleanup",
    "cleanup [FILE] [--dry-run] [--backend B] [--json]",
    "Removes every vpnlab namespace and the processes in it (objects without the vpnlab- prefix are never touched).\n"
    "With a hosts topology FILE, on each of its hosts too (over ssh): NICs a killed agent left in a namespace go back\n"
    "under their own names, then the lab's namespaces and their processes.",
    {"--dry-run", "--backend", "--json"},
    cmd_cleanup,
    {},
    nullptr,
    own_options(kCleanupOptions)};

}  // namespace vpnlab
