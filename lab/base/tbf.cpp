#include "lab/base/tbf.h"

#include <algorithm>

namespace vpnlab {

TbfParams tbf_params(double rate_bps, int mtu) {
  TbfParams p;
  // libnl takes an int: at most 8 Gbit/s of bytes per second.
  p.rate_bytes_per_s = static_cast<int64_t>(std::min(rate_bps / 8, 4.0e9 / 8 * 2));
  // veth hands the queue 64 KB GSO segments: a smaller bucket would never let one pass.
  p.burst_bytes = std::max<int64_t>(static_cast<int64_t>(p.rate_bytes_per_s * 0.004), 65536 + mtu);
  p.limit_bytes = std::max<int64_t>(static_cast<int64_t>(p.rate_bytes_per_s * 0.02), 262144);
  return p;
}

double payload_ceiling_bps(double rate_bps, int payload_bytes, int wire_ip_bytes) {
  constexpr int kEthernetHeader = 14;  // part of the length a veth's queue counts
  if (payload_bytes <= 0 || wire_ip_bytes <= 0) return 0;
  return rate_bps * payload_bytes / (wire_ip_bytes + kEthernetHeader);
}

}  // namespace vpnlab
