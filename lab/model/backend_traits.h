// What each backend can do, as data: the model (and the use cases) read these traits instead
// of comparing backend names, and messages name the backends that have a trait from the same
// table. What a backend does (its runtime, up, exec, cleanup) is its entry, listed in
// lab/app/backends.cpp, and its folder in lab/backends/.
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

struct BackendTraits {
  const char* name;
  const char* about;          // for messages: "namespaces", "QEMU guests through libvirt", ...
  bool variants = false;      // [[variant]]s applied in the nodes' network namespaces
  bool chains = false;        // [[chain]]: relays with an instance per hop
  bool lab_sweeps = false;    // a [bench] sweep rebuilds the lab between points
  bool remote_hosts = false;  // nodes run on [[host]]s, whose links are their own
  bool guests = false;        // nodes are guests booted from [lab] image: products run in them
  bool services = false;      // a product's control [[service]] in a namespace of its own beside the nodes
  // What a run spends beyond its samples, in seconds (lab/model/plan_time.h, measured by
  // bench/plan_bench.sh): per lab (built, a product up, stopped, audited, torn down), per
  // node or bridge of it besides, and once per run (preparation, the outputs).
  // netns here: 0.12-0.17 s a lab of 2-4 nodes with wireguard-go or Nebula, a run's
  // preparation and outputs under a second. vm and hosts are not measured yet: netns's.
  double lab_s = 0.08;
  double lab_node_s = 0.02;
  double run_s = 0.5;
};

// In the order a user reads them: [lab] backend, --backend and completion list them so.
// Here, beside the fields, so a new capability is its field, its values and the one place
// that reads it.
inline const std::vector<BackendTraits>& backend_traits_table() {
  static const std::vector<BackendTraits> table = {
      {.name = "netns", .about = "namespaces", .variants = true, .chains = true, .lab_sweeps = true, .services = true},
      {.name = "vm", .about = "QEMU guests through libvirt", .lab_sweeps = true, .guests = true},
      {.name = "hosts", .about = "[[host]]s over SSH", .remote_hosts = true},
  };
  return table;
}
// The traits of a known backend (the name was checked when the file was read); netns's
// for an unknown one.
const BackendTraits& backend_traits(const std::string& name);
std::vector<std::string> backend_names();
bool is_backend(const std::string& name);
// "netns or vm": the backends with a trait, for a message's hint.
std::string backends_with(bool BackendTraits::*trait);
// "netns, vm or hosts"; with `about`: "\"netns\" (namespaces), \"vm\" (...) or ...".
std::string backend_list(bool with_about = false);

}  // namespace vpnlab
