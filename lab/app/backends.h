// The backend table: one entry per backend (lab/runtime/backend_entry.h), each defined in
// its own folder under lab/backends/. model's backend_names() is the list of names a file
// may give; each has an entry here (a unit test checks).
#pragma once
#include <string>
#include <vector>

#include "lab/runtime/backend_entry.h"

namespace vpnlab {

const std::vector<BackendEntry>& backend_table();
// The entry of a backend name a plan carries (checked when the file was read).
const BackendEntry& backend_entry(const std::string& name);

}  // namespace vpnlab
