// The token bucket vpnlab puts on a shaped link: one place computes it, so the kernel gets
// what plan.txt, environment.json and the report say.
#pragma once
#include <cstdint>

namespace vpnlab {

struct TbfParams {
  int64_t rate_bytes_per_s = 0;
  int64_t burst_bytes = 0;  // bucket: 4 ms at the rate, at least one 64 KB GSO segment plus a packet
  int64_t limit_bytes = 0;  // queue: 20 ms at the rate, at least 256 KB
};

// `rate_bps` in bit/s; `mtu` of the link.
TbfParams tbf_params(double rate_bps, int mtu);

// What TCP or UDP payload a shaped link of `rate_bps` can carry at most, given the IP
// packet's size on the link (`wire_ip_bytes`, before the 14-byte Ethernet header the
// queue also counts) and the payload each such packet carries.
double payload_ceiling_bps(double rate_bps, int payload_bytes, int wire_ip_bytes);

}  // namespace vpnlab
