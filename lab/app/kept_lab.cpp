#include "lab/app/kept_lab.h"

#include <unistd.h>

#include <iostream>

#include "lab/app/backends.h"
#include "lab/app/cleanup.h"
#include "lab/app/run_request.h"
#include "lab/base/fs_util.h"
#include "lab/model/install_layout.h"
#include "lab/model/sweep.h"
#include "lab/model/topology.h"
#include "lab/run/interrupt.h"
#include "lab/run/run_state.h"

namespace vpnlab {
namespace {

// The state of the lab `up` keeps under this name, if it is up.
const RunState* kept_state(const std::vector<RunState>& states, const std::string& lab) {
  for (const auto& st : states)
    if (st.kept && st.lab == lab) return &st;
  return nullptr;
}

}  // namespace

Status refuse_kept_lab(const std::string& lab, const std::string& file) {
  auto states = list_states();
  if (const RunState* st = kept_state(states, lab))
    return make_error(
        "lab '" + lab + "' is up (made by 'vpnlab up', run " + st->run_id + "): its namespaces would collide",
        "run 'vpnlab down " + file + "' first");
  return ok_status();
}

Status bring_up(const Plan& plan, const std::string& file, const std::string& bin_dir) {
  const BackendEntry& backend = backend_entry(plan.backend);
  if (!backend.keep_up)
    return make_error(file + ": backend '" + plan.backend + "': " + backend.no_keep_up,
                      "use 'vpnlab run' with this file, or --backend netns to keep the topology up here");
  if (auto s = refuse_kept_lab(plan.lab, file); !s) return s;
  auto lock = RunLock::acquire();
  if (!lock) return lock.error();
  if (auto s = refuse_debris(); !s) return s;
  // Written before anything exists: a killed `up` leaves what `down`/`cleanup` can find.
  RunState st{plan.run_id, plan.lab, file, "", static_cast<int>(getpid()), true, backend.kept_namespaces(plan),
              plan.backend};
  if (auto s = write_state(st); !s) return s;
  Status built =
      backend.keep_up(plan, BackendContext{products_path(own_binary_dir()), bin_dir, install_interrupt_handlers()});
  if (!built) {
    (void)remove_state(plan.run_id);
    return built;
  }
  for (const auto& n : plan.nodes) std::cout << "  node " << n.name << ": " << backend.node_hint(plan, n, file) << "\n";
  // `up` keeps one lab: the file's own, not a point of its [bench] sweep (no MTU, rate,
  // threads or variant of a point is applied). Said, so nobody debugs a point here.
  if (!plan.lab_points.empty()) {
    std::string points;
    for (const auto& p : plan.lab_points) points += (points.empty() ? "" : ", ") + point_text(p.values);
    std::cout << "  the lab as the file writes it: the [bench] sweep's points (" << points
              << ") are applied only by 'vpnlab run'\n";
  }
  return ok_status();
}

Result<bool> bring_down(const std::string& lab) {
  auto lock = RunLock::acquire();
  if (!lock) return lock.error();
  bool found = false;
  for (const auto& st : list_states()) {
    if (!st.kept || st.lab != lab) continue;
    found = true;
    // Ends what runs in the lab's namespaces (the VM helper destroys its guests on TERM),
    // removes them and, for guests, /run/<prefix>vm.
    auto report = cleanup_lab_objects(false, st.namespaces);
    if (!report) return report.error();
    (void)remove_state(st.run_id);
    std::cout << "down: lab '" << st.lab << "' (run " << st.run_id << "): " << report->actions.size()
              << " objects removed\n";
  }
  return found;
}

Result<int> exec_in_node(const std::string& file, const std::string& node, const std::vector<std::string>& argv) {
  auto topo = load_topology(file);
  if (!topo) return topo.error();
  auto states = list_states();
  const RunState* st = kept_state(states, topo->lab_name);
  if (!st) return make_error("lab '" + topo->lab_name + "' is not up", "run 'vpnlab up " + file + "' first");
  // The kept lab's names come from its run id (namespaces, the VM directory).
  RunRequest request;
  request.topology_file = file;
  request.backend = st->backend;
  request.run_id = st->run_id;
  auto plan = plan_request(request);
  if (!plan) return plan.error();
  const PlanNode* n = plan->node(node);
  if (!n) {
    std::string names;
    for (const auto& p : plan->nodes) names += (names.empty() ? "" : ", ") + p.name;
    return make_error("lab '" + plan->lab + "' has no node '" + node + "'", "its nodes: " + names);
  }
  const BackendEntry& backend = backend_entry(plan->backend);
  if (!backend.exec)
    return make_error("lab '" + plan->lab + "': backend '" + plan->backend + "' keeps no lab here to exec in");
  auto status = backend.exec(*plan, *n, argv, install_interrupt_handlers());
  // Ctrl-C while a guest runs it: the shell's convention, 128 + the signal.
  if (!status && interrupted()) return 128 + interrupt_signal();
  return status;
}

}  // namespace vpnlab
