// Latency under load: ICMP echoes at a fixed interval from inside a namespace while a
// sample runs, on a thread of their own. The echoes share the queues of the measured
// traffic, so their round trips show the queueing a product adds under load.
#pragma once
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "lab/base/ipv4.h"
#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

class LatencyProbe {
 public:
  struct Summary {
    int sent = 0, answered = 0;
    double p50_ms = 0, p99_ms = 0, max_ms = 0;
    std::vector<double> rtts_ms;  // every answered probe's round trip, in send order
  };
  static Result<std::unique_ptr<LatencyProbe>> start(int netns_fd, Ipv4Addr target, int interval_ms);
  virtual ~LatencyProbe();
  // Idempotent. Virtual: a backend may run the probe elsewhere (the hosts backend's agent).
  virtual Summary stop();

  // Nearest-rank quantile (q in (0, 1]) of unsorted values; 0 for none.
  static double quantile(std::vector<double> values, double q);

 protected:
  LatencyProbe() = default;

 private:
  void loop();
  UniqueFd sock_;
  UniqueFd stop_fd_;  // eventfd
  Ipv4Addr target_;
  int interval_ms_ = 10;
  uint16_t id_ = 0;
  std::thread thread_;
  std::vector<double> rtts_ms_;
  int sent_ = 0;
};

}  // namespace vpnlab
