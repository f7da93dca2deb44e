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

// Whether each qdisc kind ("netem", "fq_codel", ...) can be the root of a veth, tried in an
// anonymous scratch namespace: ok, or the kernel's refusal (netem with a 1 ms delay, tbf
// with a rate, any other kind with its defaults).
std::vector<std::pair<std::string, Status>> probe_qdiscs(const std::vector<std::string>& kinds);

// /dev/kvm: opens it and creates a VM (no guest is booted here).
Capability probe_kvm();

// Creates a link of a kernel kind ("wireguard", "xfrm", "vxlan", ...) with what its kind
// needs from `options` (an xfrm's if_id; a vxlan's id, remote and port) and nothing more.
Status create_link_of_kind(nl_sock* sock, const std::string& name, const std::string& kind,
                           const LinkOptions& options = {});

}  // namespace vpnlab
