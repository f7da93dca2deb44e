// The hosts backend's entry (lab/runtime/backend_entry.h): nodes on real hosts over ssh.
#pragma once
#include "lab/runtime/backend_entry.h"

namespace vpnlab {

const BackendEntry& hosts_backend_entry();

}  // namespace vpnlab
