// A test pattern expanded into the iperf3 processes that carry it. One iperf3 3.12
// process is single-threaded, so a test's streams are spread over as many client
// processes as the client has load CPUs (at least one per server), each pinned to one.
#pragma once
#include <string>
#include <vector>

#include "lab/model/plan.h"

namespace vpnlab {

struct TrafficProcess {
  size_t server_index = 0;  // into the test's servers
  std::string client, server;
  int port = 0;         // the server's listening port, one per process
  int parallel = 1;     // iperf3 -P
  int client_cpu = -1;  // -1: not pinned
  int server_cpu = -1;
  double bitrate_bps = 0;  // per stream (iperf3 -b is per stream); 0: unlimited
  int length = 0;          // UDP payload (-l); 0 for TCP
};

std::vector<TrafficProcess> expand_traffic(const Plan& plan, const PlanTest& test, int base_port);

// "one-to-one", "one-to-many" (client sends to every server), "many-to-one" (every server
// sends to the client); `bidirectional` is a direction, not a pattern.
std::string traffic_pattern(const TestSpec& t);
std::string traffic_direction(const TestSpec& t);

// The UDP payload a test uses: its length, or the largest that fits the overlay MTU.
int udp_length(const TestSpec& t, int overlay_mtu);

}  // namespace vpnlab
