// The netns backend's entry (lab/runtime/backend_entry.h): nodes as namespaces on this host.
#pragma once
#include "lab/runtime/backend_entry.h"

namespace vpnlab {

const BackendEntry& netns_backend_entry();

}  // namespace vpnlab
