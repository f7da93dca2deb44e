// Memory over time: while a sample runs, the resident set (VmRSS) of each of the product's
// daemons every `interval_ms`, summed per node. A peak hides a product whose memory swings
// by hundreds of MB while another's stays flat; the curve shows it. Read where each daemon
// runs (NodeProcess::status: this host's /proc, or its agent).
#pragma once
#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lab/base/process.h"

namespace vpnlab {

struct RssPoint {
  double t_s = 0;  // since the sampler started
  std::string node;
  int64_t rss_kb = 0;
};

class RssSampler {
 public:
  // `daemons`: (node, process), alive until stop(). Starts sampling at once.
  RssSampler(std::vector<std::pair<std::string, NodeProcess*>> daemons, int interval_ms);
  ~RssSampler();
  RssSampler(const RssSampler&) = delete;
  RssSampler& operator=(const RssSampler&) = delete;

  // Stops and returns every point, in time order.
  std::vector<RssPoint> stop();

  // "t_s node rss_kb" lines, the format of raw/PRODUCT/TEST/sample-N-rss.txt.
  static std::string format(const std::vector<RssPoint>& points);

 private:
  void loop();

  std::vector<std::pair<std::string, NodeProcess*>> daemons_;
  int interval_ms_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<RssPoint> points_;
  std::thread thread_;
};

}  // namespace vpnlab
