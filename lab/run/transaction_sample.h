// What an rr or crr test changes in a sample (lab/run/sample.cpp runs it like iperf3's
// processes): its server, its one client and what its output adds to the row.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lab/model/traffic.h"
#include "lab/run/sample.h"

namespace vpnlab {

std::vector<std::string> transaction_server_argv(const SampleContext& c, const TrafficProcess& p);
SpawnSpec transaction_client_spec(const SampleContext& c, const std::string& label, const TrafficProcess& p, double duration_s);

// Transactions/s and their percentiles into the row, with the payload both ways as its
// Gbit/s (so `diff` and `compare` ratios are transaction-rate ratios); per VPN node the
// bytes the tunnel must have carried at least: each transaction's request and response,
// and for crr the 40-byte minimum TCP/IP header of two packets each way besides.
Status merge_transactions(const SampleContext& c, const TrafficProcess& p, const SpawnSpec& client, double duration_s, SampleRow* row,
                          std::map<std::string, std::pair<uint64_t, uint64_t>>* expect, uint64_t* delivered);

}  // namespace vpnlab
