// The generators of rr and crr tests (TestKind): their argv and what is read back. Both are
// vpnlab-crr (lab/generators/crr.h): rr over one TCP connection, crr a connection each.
// rr was sockperf ping-pong until its client's fixed 2 s sleep after connecting cost every
// sample 2.35 s; iperf 2.1.8's --bounceback failed here with 1-byte messages ("tcp
// bounce-back read failed") and then ignored SIGTERM.
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

struct TransactionSample {
  double transactions = 0;                                 // finished request/response pairs (crr: connections)
  double seconds = 0;                                      // over which they were counted
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, p999_ms = 0;  // one transaction, request sent to response received
  double per_second() const { return seconds > 0 ? transactions / seconds : 0; }
};

// `one_connection`: rr's transactions over one connection, else crr's connection each.
std::vector<std::string> crr_server_argv(const std::string& program, int port, int size, bool one_connection = false);
std::vector<std::string> crr_client_argv(const std::string& program, const std::string& address, int port, int size,
                                         double seconds, bool one_connection = false);
// vpnlab-crr's JSON line; a run with errors is an error (a refused or reset connection
// is not a transaction rate).
Result<TransactionSample> parse_crr(const std::string& text);

}  // namespace vpnlab
