// Permanent neighbour (ARP) entries. The kernel's ARP table is one table for every network
// namespace, and its learned entries are capped by net.ipv4.neigh.default.gc_thresh3 (1024
// by default, settable only for the whole host): a 100-node mesh on one bridge needs 9900,
// so learned entries overflow ("neighbor table overflow") and most pairs never reach each
// other. Permanent entries are not counted against that cap.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "lab/base/ipv4.h"
#include "lab/base/result.h"
#include "lab/kernel/netlink.h"

namespace vpnlab {

using MacAddr = std::array<uint8_t, 6>;

// The link's hardware address.
Result<MacAddr> link_mac(nl_sock* sock, const std::string& ifname);

// `addr` is at `mac` on `ifname`, for good (NUD_PERMANENT); an existing entry is replaced.
Status add_permanent_neighbour(nl_sock* sock, const std::string& ifname, Ipv4Addr addr, const MacAddr& mac);

}  // namespace vpnlab
