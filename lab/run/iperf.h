// iperf3: the argv vpnlab runs and what it reads back from `iperf3 -J`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/model/test_kinds.h"  // kIperfPort

namespace vpnlab {

struct IperfClientOptions {
  std::string server_address;
  int port = kIperfPort;
  double duration_s = 10;
  int streams = 1;
  bool reverse = false;
  bool bidirectional = false;  // --bidir
  bool udp = false;
  double bitrate_bps = 0;  // per stream (-b); 0: iperf3's default
  int length = 0;          // -l (UDP payload); 0: default
  std::optional<int> mss;
  bool repeating_payload = false;  // "0123456789..." payload, for the plaintext check
};

std::vector<std::string> iperf_client_argv(const IperfClientOptions& o);
std::vector<std::string> iperf_server_argv(int port);

struct IperfSample {
  double gbps = 0;              // what the receiver got, Gbit/s (10^9); both directions for --bidir
  uint64_t bytes_received = 0;  // by the receiver of the test's direction
  uint64_t bytes_sent = 0;
  double sent_bps = 0;  // the rate the sender achieved (UDP: what was really offered, short of -b when generator-bound)
  uint64_t bytes_received_back = 0;  // --bidir: what the client received from the server
  uint64_t udp_packets = 0, udp_lost = 0;
  double cpu_host_pct = 0, cpu_remote_pct = 0;  // each iperf3 process's CPU, % of one CPU
  int64_t retransmits = -1;                     // -1: not reported
  double seconds = 0;
  int streams = 0;
};

// Parses the client's JSON. An iperf3-reported error comes back as an Error with its text.
Result<IperfSample> parse_iperf_json(const std::string& json_text);

}  // namespace vpnlab
