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
#include "lab/runtime/measurements.h"

namespace vpnlab {

// The LatencyProbe of this kernel: ICMP from a socket in the namespace.
class IcmpLatencyProbe final : public LatencyProbe {
 public:
  // `count` echoes, then it only listens for their answers (0: echoes until stopped).
  static Result<std::unique_ptr<LatencyProbe>> start(int netns_fd, Ipv4Addr target, int interval_ms, int count);
  ~IcmpLatencyProbe() override;
  Summary stop() override;

 private:
  IcmpLatencyProbe() = default;
  void loop();
  UniqueFd sock_;
  UniqueFd stop_fd_;  // eventfd
  Ipv4Addr target_;
  int interval_ms_ = 10;
  int count_ = 0;
  uint16_t id_ = 0;
  std::thread thread_;
  std::vector<double> rtts_ms_;
  int sent_ = 0;
  int reordered_ = 0;
};

}  // namespace vpnlab
