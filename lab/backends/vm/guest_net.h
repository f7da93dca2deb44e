// Network setup inside a guest, over netlink like the netns backend: a NIC is found by the
// MAC the domain XML gave it and renamed to the plan's interface name, so products and
// tests see the same names in a guest as in a namespace.
#pragma once
#include <string>

#include "lab/base/result.h"

struct nl_sock;

namespace vpnlab {

Status rename_link_by_mac(nl_sock* sock, const std::string& mac, const std::string& name);

}  // namespace vpnlab
