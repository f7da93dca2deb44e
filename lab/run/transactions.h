// The generators of rr and crr tests (TestKind): their argv and what is read back.
// rr: sockperf ping-pong over one TCP connection, its percentiles from its own histogram
// (chosen over iperf 2.1.8's --bounceback, which here failed with 1-byte messages, "tcp
// bounce-back read failed", and then ignored SIGTERM). crr: vpnlab-crr (lab/generators/crr.h).
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

struct TransactionSample {
  double transactions = 0;  // finished request/response pairs (crr: connections)
  double seconds = 0;       // over which they were counted
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, p999_ms = 0;  // one transaction, request sent to response received
  double per_second() const { return seconds > 0 ? transactions / seconds : 0; }
};

std::vector<std::string> sockperf_server_argv(int port);
std::vector<std::string> sockperf_client_argv(const std::string& address, int port, int size, double seconds);
// sockperf's report: "[Valid Duration] RunTime=..; ReceivedMessages=.." and its
// percentile lines. sockperf prints half the round trip as "latency"; a transaction is a
// whole round trip, so the percentiles come back doubled. Its ERROR lines are the error.
Result<TransactionSample> parse_sockperf(const std::string& text);

std::vector<std::string> crr_server_argv(const std::string& program, int port, int size);
std::vector<std::string> crr_client_argv(const std::string& program, const std::string& address, int port, int size, double seconds);
// vpnlab-crr's JSON line; a run with errors is an error (a refused or reset connection
// is not a transaction rate).
Result<TransactionSample> parse_crr(const std::string& text);

}  // namespace vpnlab
