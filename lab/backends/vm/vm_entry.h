// The vm backend's entry (lab/runtime/backend_entry.h): nodes as QEMU guests on this host.
#pragma once
#include "lab/runtime/backend_entry.h"

namespace vpnlab {

const BackendEntry& vm_backend_entry();

}  // namespace vpnlab
