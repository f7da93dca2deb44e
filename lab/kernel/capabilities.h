// What this kernel and machine can do, found by trying: each network object is created in
// a scratch lab namespace (a module can be built but not loadable, so configs would lie).
#pragma once
#include <string>
#include <vector>

#include "lab/base/link_options.h"
#include "lab/base/result.h"
#include "lab/runtime/measurements.h"

struct nl_sock;

namespace vpnlab {


// Probes network features in a scratch namespace named `scratch_ns` (lab prefix), which is
// removed again: netns, veth, bridge, tun, wireguard-link, esp-state, tbf-qdisc, netem-qdisc.
std::vector<Capability> probe_network_capabilities(const std::string& scratch_ns);

// /dev/kvm: opens it and creates a VM (no guest is booted here).
Capability probe_kvm();

// Creates a link of a kernel kind ("wireguard", "xfrm", "vxlan", ...) with what its kind
// needs from `options` (an xfrm's if_id; a vxlan's id, remote and port) and nothing more.
Status create_link_of_kind(nl_sock* sock, const std::string& name, const std::string& kind, const LinkOptions& options = {});

}  // namespace vpnlab
