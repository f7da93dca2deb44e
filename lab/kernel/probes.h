// Readiness probes inside a namespace. No kernel event says "the tunnel passes traffic"
// or "iperf3 is listening", so these are bounded probe loops; neither consumes what it
// checks (a connect() probe would use up `iperf3 -s -1`'s single test).
#pragma once
#include "lab/base/ipv4.h"
#include "lab/base/result.h"

#include <cstddef>
#include <cstdint>

namespace vpnlab {

// The Internet checksum of an ICMP message, in network byte order.
uint16_t icmp_checksum(const unsigned char* data, size_t len);

// Whether `got` bytes read from a raw ICMP socket (IP header first), sent by `from`, are
// the echo reply with identifier `id` from `target`; then *seq gets its sequence number
// and *icmp_len the length of the ICMP message.
bool is_echo_reply(const unsigned char* buf, long got, Ipv4Addr from, uint16_t id, Ipv4Addr target, uint16_t* seq,
                   size_t* icmp_len);

// ICMP echo from inside the namespace until `target` answers. *rtt_ms gets the answered
// probe's round trip. `size` is the ICMP payload; with `dont_fragment`, DF is set.
Status ping_until_answered(int netns_fd, Ipv4Addr target, double timeout_s, int interrupt_fd, double* rtt_ms = nullptr,
                           int size = 56, bool dont_fragment = false);

// Waits until a TCP socket listens on `port` in the namespace (seen with sock_diag).
Status wait_tcp_listening(int netns_fd, int port, double timeout_s, int interrupt_fd);

}  // namespace vpnlab
