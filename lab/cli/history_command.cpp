#include "lab/cli/history_command.h"

#include <iostream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lab/base/text_table.h"
#include "lab/cli/json_output.h"
#include "lab/history/history_store.h"

namespace vpnlab {

namespace {

// --history PATH, else the default place.
Result<HistoryStore> open_history(const std::string& path) { return HistoryStore::open(path.empty() ? default_history_path() : path); }

// Each run directory in turn: added, or there already; one that cannot be read is named
// and the others are still added. Exit 1 when any failed.
int import_runs(HistoryStore& store, const std::vector<std::string>& dirs) {
  int failed = 0;
  for (const auto& dir : dirs) {
    auto added = store.add_run(dir);
    if (!added) {
      std::cerr << with_context(added.error(), "history import").format() << "\n";
      ++failed;
      continue;
    }
    std::cout << dir << ": " << (*added ? "added" : "already in the history") << "\n";
  }
  return failed ? kExitError : 0;
}

int list_runs(HistoryStore& store, bool json) {
  auto runs = store.runs();
  if (!runs) return fail(runs.error());
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : *runs)
      out.push_back({{"run_id", r.run_id}, {"started", r.started}, {"topology_file", r.topology_file}, {"vpnlab_version", r.vpnlab_version},
                     {"products", r.products}, {"rows", r.rows}, {"valid", r.valid}});
    std::cout << nlohmann::json{{"schema", kJsonSchema}, {"history", store.path()}, {"runs", out}}.dump(2) << "\n";
    return 0;
  }
  std::cout << store.path() << ": " << runs->size() << " run(s)\n";
  TextTable t({-22, -21, -28, 9, -1});
  std::cout << t.line({"run", "started", "topology", "valid", "products"});
  for (const auto& r : *runs)
    std::cout << t.line({r.run_id, r.started, r.topology_file, std::to_string(r.valid) + "/" + std::to_string(r.rows), r.products});
  return 0;
}

}  // namespace

void add_to_history(const std::string& path, const std::string& run_dir) {
  auto store = open_history(path);
  auto added = store ? store->add_run(run_dir) : Result<bool>(store.error());
  if (!added) {
    spdlog::warn("the run is not in the history: {} ({}); the run is complete: 'vpnlab history import {}' adds it later",
                 added.error().message, added.error().hint, run_dir);
    return;
  }
  spdlog::info("history: {} {}", store->path(), *added ? "has this run now" : "had this run already");
}

int cmd_history(const Args& a) {
  const bool import = !a.positional.empty() && a.positional[0] == "import";
  if (!a.positional.empty() && !import) return usage_error("history", "'" + a.positional[0] + "' is not a history command (import)");
  if (import && a.positional.size() < 2) return usage_error("history", "give the run directories to import: history import RUN...");
  auto store = open_history(a.history_path);
  if (!store) return fail(store.error());
  if (import) return import_runs(*store, std::vector<std::string>(a.positional.begin() + 1, a.positional.end()));
  return list_runs(*store, a.json);
}

}  // namespace vpnlab
