// What a link of a kernel kind needs beyond its name and kind, as a product's create_link
// step gives it: an XFRM interface's if_id, a VXLAN's id, remote and port. Plain values, so
// that the spec, the runtimes, the agents' wire form and the kernel layer share one struct.
#pragma once
#include <cstdint>
#include <string>

namespace vpnlab {

struct LinkOptions {
  uint32_t if_id = 0;  // xfrm: the policies' interface id (> 0)
  uint32_t vni = 0;    // vxlan: the VXLAN network identifier
  std::string remote;  // vxlan: the other end's address (IPv4 or IPv6)
  int dstport = 0;     // vxlan: its UDP port (0: the kernel's default)
};

}  // namespace vpnlab
