// TCP_CRR: a new TCP connection per transaction (connect, one request, one response,
// close), as netperf's TCP_CRR and a web server's HTTP/1.0 clients do it. No Debian tool
// runs it within a time limit: iperf 2.1.8's --connect-only ignores -t, sends no request
// and ran this machine out of ports (28 000 TIME_WAIT sockets in 2 s); sockperf has no
// such mode. The server closes first, after its response, so the TIME_WAIT state is on
// its side and the client never runs out of ports.
#pragma once
#include <cstdint>
#include <string>

#include "lab/base/result.h"
#include "lab/generators/latency_histogram.h"

namespace vpnlab {

struct CrrResult {
  uint64_t connections = 0;   // connections made (crr: one per transaction; rr: one)
  uint64_t transactions = 0;  // finished transactions
  uint64_t errors = 0;        // connects, requests or responses that failed
  double seconds = 0;         // the measured time
  LatencyHistogram ms;        // each transaction, connect() to the last response byte
  std::string first_error;
};

// Serves transactions of `size` bytes on 0.0.0.0:port until killed; listening once it
// returns from bind+listen (ready_fd, if >= 0, gets one byte then).
Status crr_serve(int port, int size, int ready_fd = -1);

// Runs transactions against address:port back to back for `seconds`.
CrrResult crr_run(const std::string& address, int port, int size, double seconds);

// TCP_RR: request and response back to back over one connection, as netperf's TCP_RR.
// sockperf ping-pong measures the same, but its client sleeps 2 s after connecting (3.7;
// no option shortens it), which cost every rr sample 2.35 s here. The server serves one
// connection at a time, transactions until the client closes.
Status rr_serve(int port, int size, int ready_fd = -1);
// One connection (its connect not timed), then transactions for `seconds`: each from the
// request's first byte sent to the response's last byte received.
CrrResult rr_run(const std::string& address, int port, int size, double seconds);

// One JSON object: connections, transactions, errors, seconds, p50/p90/p99/p999 ms, first_error.
std::string crr_json(const CrrResult& r);

}  // namespace vpnlab
