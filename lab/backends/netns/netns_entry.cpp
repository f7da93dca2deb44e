#include "lab/backends/netns/netns_entry.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "lab/backends/netns/live_topology.h"
#include "lab/backends/netns/netns_runtime.h"
#include "lab/base/unique_fd.h"
#include "lab/kernel/namespace.h"

namespace vpnlab {
namespace {

Result<RuntimeFactory> prepare_netns(const Plan&, const BackendContext&) { return RuntimeFactory(build_netns_runtime); }

Status build_namespaces_up(const Plan& plan, const BackendContext&) {
  BuildTimings timings;
  auto topo = LiveTopology::build(plan, &timings);
  if (!topo) return topo.error();
  // The namespaces outlive this process: drop our handles without tearing down.
  (void)topo.value().release();
  std::cout << "up: lab '" << plan.lab << "', " << plan.namespaces().size() << " namespaces in "
            << timings.namespaces_ms + timings.links_ms << " ms\n";
  return ok_status();
}

// What a kept lab holds on this host: the node namespaces.
std::vector<std::string> node_namespaces(const Plan& plan) { return plan.namespaces(); }

std::string namespace_hint(const Plan&, const PlanNode& n, const std::string& file) {
  return "ip netns exec " + n.ns + " CMD...  or  vpnlab exec " + file + " " + n.name + " -- CMD...";
}

// This process becomes the command inside the node's namespace (stdin, a terminal and
// signals all its own); it returns only when it could not.
Result<int> exec_in_namespace(const Plan&, const PlanNode& node, const std::vector<std::string>& argv, int) {
  UniqueFd ns(::open((std::string(kNetnsDir) + "/" + node.ns).c_str(), O_RDONLY | O_CLOEXEC));
  if (!ns.valid())
    return make_error("cannot open namespace " + node.ns + ": " + errno_text(errno),
                      "is the lab still up? 'vpnlab up' again");
  if (::setns(ns.get(), CLONE_NEWNET) < 0)
    return make_error("cannot enter namespace " + node.ns + ": " + errno_text(errno));
  std::vector<char*> args;
  for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  return make_error(
      "cannot run '" + argv[0] + "' in node '" + node.name + "': " + errno_text(errno),
      errno == ENOENT ? "install it (scripts/install-deps.sh installs what the lab calls) or give its full path" : "");
}

}  // namespace

const BackendEntry& netns_backend_entry() {
  static const BackendEntry entry = {"netns",         prepare_netns,  build_namespaces_up, "",
                                     node_namespaces, namespace_hint, exec_in_namespace};
  return entry;
}

}  // namespace vpnlab
