// IPv4 routes inside a lab namespace, over netlink.
#pragma once
#include "lab/base/ipv4.h"
#include "lab/base/result.h"

struct nl_sock;

namespace vpnlab {

// Adds or replaces the route to `dest` (0.0.0.0/0: default) via `via`, which must be on a
// connected subnet. Replace, not add: a product may have installed the same route (Nebula
// does for its unsafe_routes), and the lab's is the one the run states.
Status replace_route(nl_sock* sock, const Ipv4Prefix& dest, Ipv4Addr via);

}  // namespace vpnlab
