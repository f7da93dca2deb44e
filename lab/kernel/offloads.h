// Offload state of an interface (ethtool's classic get-ioctls), read inside its namespace:
// veth segments 64 KB with TSO while TUN products move MTU-sized packets, so results are
// only comparable with these recorded.
#pragma once
#include <map>
#include <string>

#include "lab/base/result.h"

namespace vpnlab {

// "tso", "gso", "gro", "sg", "tx-checksum", "rx-checksum" -> on/off.
Result<std::map<std::string, bool>> read_offloads(int netns_fd, const std::string& ifname);

// Turns TSO, GSO and GRO on or off (the baseline-nooffload variant: the underlay then
// moves MTU-sized packets, as TUN products do, instead of 64 KB segments).
Status set_segmentation_offloads(int netns_fd, const std::string& ifname, bool on);

}  // namespace vpnlab
