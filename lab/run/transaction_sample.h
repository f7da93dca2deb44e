// What an rr or crr test changes in a sample (lab/run/sample.cpp runs it like iperf3's
// processes): its server, its one client and what its output adds to the row.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lab/model/traffic.h"
#include "lab/run/sample.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

std::vector<std::string> transaction_server_argv(const SampleContext& c, const TrafficProcess& p);
SpawnSpec transaction_client_spec(const SampleContext& c, const std::string& label, const TrafficProcess& p, double duration_s);

// Transactions/s and their percentiles into the row, with the payload both ways as its
// Gbit/s (so `diff` and `compare` ratios are transaction-rate ratios); per VPN node the
// bytes the tunnel must have carried at least: each transaction's request and response,
// and for crr the 40-byte minimum TCP/IP header of two packets each way besides.
using ExpectedBytes = std::map<std::string, std::pair<uint64_t, uint64_t>>;  // VPN node -> {sent, received}
Status merge_transactions(const SampleContext& c, const TrafficProcess& p, const SpawnSpec& client, SampleRow* row, ExpectedBytes* expect,
                          uint64_t* delivered);

// A latency test: its echoes are its transactions (answered per second, the round trips'
// percentiles), and each answered one crossed the tunnel both ways (84 bytes: IPv4, ICMP
// and ping's 56-byte payload).
void idle_latency_into(const LatencyProbe::Summary& echoes, double duration_s, SampleRow* row);
Status expect_echoes(const SampleContext& c, const SampleRow& row, ExpectedBytes* expect, uint64_t* delivered);

}  // namespace vpnlab
