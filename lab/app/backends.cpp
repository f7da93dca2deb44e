#include "lab/app/backends.h"

#include "lab/backends/hosts/hosts_entry.h"
#include "lab/backends/netns/netns_entry.h"
#include "lab/backends/vm/vm_entry.h"

namespace vpnlab {

const std::vector<BackendEntry>& backend_table() {
  static const std::vector<BackendEntry> table = {netns_backend_entry(), vm_backend_entry(), hosts_backend_entry()};
  return table;
}

const BackendEntry& backend_entry(const std::string& name) {
  for (const auto& b : backend_table())
    if (b.name == name) return b;
  return backend_table().front();  // unreachable: a plan's backend was checked against backend_names()
}

}  // namespace vpnlab
