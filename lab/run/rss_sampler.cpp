#include "lab/run/rss_sampler.h"

#include <fmt/format.h>
#include <chrono>
#include <cstdio>
#include <map>

namespace vpnlab {

RssSampler::RssSampler(std::vector<std::pair<std::string, NodeProcess*>> daemons, int interval_ms)
    : daemons_(std::move(daemons)), interval_ms_(interval_ms) {
  if (!daemons_.empty()) thread_ = std::thread([this] { loop(); });
}

RssSampler::~RssSampler() { (void)stop(); }

std::vector<RssPoint> RssSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  return points_;
}

// A fixed schedule from the start (not "interval after the last read"), so the points stay
// evenly spaced; the wait ends early when stop() is called.
void RssSampler::loop() {
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0;; ++k) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::map<std::string, int64_t> by_node;
    for (const auto& [node, p] : daemons_) by_node[node] += p->status().rss_kb;
    std::unique_lock<std::mutex> lock(mu_);
    for (const auto& [node, kb] : by_node) points_.push_back({t, node, kb});
    if (wake_.wait_until(lock, start + std::chrono::milliseconds(interval_ms_ * (k + 1)), [this] { return stopping_; }))
      return;
  }
}

std::string RssSampler::format(const std::vector<RssPoint>& points) {
  std::string out;
  for (const auto& p : points) {
    out += fmt::format("{:.3f} {} {}\n", p.t_s, p.node, static_cast<long long>(p.rss_kb));
  }
  return out;
}

}  // namespace vpnlab
