// Memory over time: while a sample runs, the resident set (VmRSS) of each of the product's
// daemons every `interval_ms`, summed per node. A peak hides a product whose memory swings
// by hundreds of MB while another's stays flat; the curve shows it. Host pids only (guests'
// daemons are not readable from this host's /proc).
#pragma once
#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace vpnlab {

struct RssPoint {
  double t_s = 0;  // since the sampler started
  std::string node;
  int64_t rss_kb = 0;
};

class RssSampler {
 public:
  // `daemons`: (node, host pid). Starts sampling at once.
  RssSampler(std::vector<std::pair<std::string, pid_t>> daemons, int interval_ms);
  ~RssSampler();
  RssSampler(const RssSampler&) = delete;
  RssSampler& operator=(const RssSampler&) = delete;

  // Stops and returns every point, in time order.
  std::vector<RssPoint> stop();

  // "t_s node rss_kb" lines, the format of raw/PRODUCT/TEST/sample-N-rss.txt.
  static std::string format(const std::vector<RssPoint>& points);

 private:
  void loop();

  std::vector<std::pair<std::string, pid_t>> daemons_;
  int interval_ms_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<RssPoint> points_;
  std::thread thread_;
};

// What /proc/PID/status says of a process's memory and threads; zeros when it is gone or
// unreadable (a daemon that exited between listing and reading).
struct ProcStatus {
  int64_t rss_kb = 0;       // VmRSS: resident now
  int64_t peak_rss_kb = 0;  // VmHWM: the most it was resident
  int threads = 0;
};
ProcStatus read_proc_status(pid_t pid);

}  // namespace vpnlab
