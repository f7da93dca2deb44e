#include "lab/cli/up_command.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <iostream>

#include "lab/base/fs_util.h"
#include "lab/cli/cleanup.h"
#include "lab/cli/run_request.h"
#include "lab/model/topology.h"
#include "lab/netns_backend/live_topology.h"
#include "lab/run/interrupt.h"
#include "lab/run/run_state.h"
#include "vm/guest_lab.h"
#include "vm/guest_runtime.h"
#include "vm/image_command.h"

namespace vpnlab {
namespace {

// What the kept lab holds on this host: the node namespaces, or the one VM-host namespace
// in which the guests' QEMU processes and their helper live.
std::vector<std::string> kept_namespaces(const Plan& plan) {
  if (plan.backend == "vm") return {plan.ns_prefix + "vmhost"};
  return plan.namespaces();
}

// The directory the kept guests share with this host (their run directory while up).
std::string guest_share_dir(const Plan& plan) { return vm_dir_of(plan) + "/up"; }

Status build_namespaces(const Plan& plan) {
  BuildTimings timings;
  auto topo = LiveTopology::build(plan, &timings);
  if (!topo) return topo.error();
  // The namespaces outlive this process: drop our handles without tearing down.
  (void)topo.value().release();
  std::cout << "up: lab '" << plan.lab << "', " << plan.namespaces().size() << " namespaces in "
            << timings.namespaces_ms + timings.links_ms << " ms\n";
  return ok_status();
}

Status boot_guests(const Plan& plan, const std::string& bin_dir) {
  auto vm = prepare_vm_backend(image_recipe_path(plan.image), bin_dir);
  if (!vm) return vm.error();
  GuestLabOptions o;
  o.run_dir = guest_share_dir(plan);
  o.accel = vm->accel.accel;
  o.memory_mib = vm->memory_mib;
  o.interrupt_fd = install_interrupt_handlers();
  o.agent_path = vm->agent_path;
  o.vmhost_path = vm->vmhost_path;
  auto lab = GuestLab::start(plan, vm->image, o);  // on failure it has removed what it made
  if (!lab) return lab.error();
  if (auto s = (*lab)->keep(); !s) return s.error();  // the destructor then tears down
  double slowest = 0;
  for (const auto& g : (*lab)->guests()) slowest = std::max(slowest, g.boot_s);
  std::cout << "up: lab '" << plan.lab << "', " << plan.nodes.size() << " guests (" << accel_name(vm->accel.accel)
            << ", image " << vm->image.name << "), the slowest ready after " << static_cast<int>(slowest * 1000) << " ms\n";
  return ok_status();
}

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
    return make_error("lab '" + lab + "' is up (made by 'vpnlab up', run " + st->run_id + "): its namespaces would collide",
                      "run 'vpnlab down " + file + "' first");
  return ok_status();
}

Status bring_up(const Plan& plan, const std::string& file, const std::string& bin_dir) {
  if (plan.backend == "hosts")
    return make_error(file + ": backend 'hosts': 'up' keeps namespaces or guests on this machine, not on real hosts",
                      "use 'vpnlab run' with this file, or --backend netns to keep the topology up here");
  if (auto s = refuse_kept_lab(plan.lab, file); !s) return s;
  auto lock = RunLock::acquire();
  if (!lock) return lock.error();
  if (auto s = refuse_debris(); !s) return s;
  // Written before anything exists: a killed `up` leaves what `down`/`cleanup` can find.
  RunState st{plan.run_id, plan.lab, file, "", static_cast<int>(getpid()), true, kept_namespaces(plan), plan.backend};
  if (auto s = write_state(st); !s) return s;
  Status built = plan.backend == "vm" ? boot_guests(plan, bin_dir) : build_namespaces(plan);
  if (!built) {
    (void)remove_state(plan.run_id);
    return built;
  }
  for (const auto& n : plan.nodes)
    std::cout << "  node " << n.name << ": "
              << (plan.backend == "vm" ? "vpnlab exec " + file + " " + n.name + " -- CMD...  (console: " + guest_share_dir(plan) +
                                             "/vm/" + n.name + ".console.log)"
                                       : "ip netns exec " + n.ns + " CMD...  or  vpnlab exec " + file + " " + n.name + " -- CMD...")
              << "\n";
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
    std::cout << "down: lab '" << st.lab << "' (run " << st.run_id << "): " << report->actions.size() << " objects removed\n";
  }
  return found;
}

namespace {

Result<int> exec_in_namespace(const PlanNode& node, const std::vector<std::string>& argv) {
  UniqueFd ns(::open((std::string(kNetnsDir) + "/" + node.ns).c_str(), O_RDONLY | O_CLOEXEC));
  if (!ns.valid()) return make_error("cannot open namespace " + node.ns + ": " + errno_text(errno), "is the lab still up? 'vpnlab up' again");
  if (::setns(ns.get(), CLONE_NEWNET) < 0) return make_error("cannot enter namespace " + node.ns + ": " + errno_text(errno));
  std::vector<char*> args;
  for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  return make_error("cannot run '" + argv[0] + "' in node '" + node.name + "': " + errno_text(errno),
                    errno == ENOENT ? "install it (scripts/install-deps.sh installs what the lab calls) or give its full path" : "");
}

Result<int> exec_in_guest(const Plan& plan, const PlanNode& node, const std::vector<std::string>& argv) {
  int interrupt_fd = install_interrupt_handlers();
  auto agent = AgentClient::connect(agent_socket_of(plan, node.name), 10, interrupt_fd, nullptr);
  if (!agent) return with_context(agent.error(), "guest '" + node.name + "'");
  // The guest writes the output into the directory it shares with this host.
  std::string base = guest_share_dir(plan) + "/exec-" + std::to_string(getpid());
  AgentClient::Spawn spec;
  spec.argv = argv;
  spec.stdout_path = base + ".out";
  spec.stderr_path = base + ".err";
  auto id = (*agent)->spawn(spec);
  if (!id) return with_context(id.error(), "guest '" + node.name + "': " + argv[0]);
  auto status = (*agent)->wait(*id, 1e9, interrupt_fd);
  if (!status || !status->has_value()) (void)(*agent)->stop(*id, 1000);
  std::cout << read_file_text(spec.stdout_path) << std::flush;
  std::cerr << read_file_text(spec.stderr_path) << std::flush;
  std::error_code ec;
  std::filesystem::remove(spec.stdout_path, ec);
  std::filesystem::remove(spec.stderr_path, ec);
  if (!status) return interrupted() ? 128 + interrupt_signal() : Result<int>(status.error());
  return status->value_or(-1);
}

}  // namespace

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
  return plan->backend == "vm" ? exec_in_guest(*plan, *n, argv) : exec_in_namespace(*n, argv);
}

}  // namespace vpnlab
