#include "lab/kernel/latency_probe.h"

#include <arpa/inet.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "lab/kernel/namespace.h"
#include "lab/kernel/probes.h"

namespace vpnlab {

namespace {
using Clock = std::chrono::steady_clock;
constexpr size_t kPayload = 56;  // ping's default: a small packet, as latency probes are
}  // namespace

Result<std::unique_ptr<LatencyProbe>> IcmpLatencyProbe::start(int netns_fd, Ipv4Addr target, int interval_ms,
                                                              int count) {
  std::unique_ptr<IcmpLatencyProbe> p(new IcmpLatencyProbe());
  int err = 0;
  if (auto s = run_in_netns(netns_fd,
                            [&] {
                              p->sock_.reset(socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_ICMP));
                              err = errno;
                            });
      !s)
    return s.error();
  if (!p->sock_.valid())
    return make_error("latency probe: cannot open an ICMP socket: " + errno_text(err), "run vpnlab as root");
  p->stop_fd_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!p->stop_fd_.valid()) return make_error("latency probe: eventfd: " + errno_text(errno));
  p->target_ = target;
  p->interval_ms_ = interval_ms;
  p->count_ = count;
  p->id_ = static_cast<uint16_t>(std::random_device{}());
  p->thread_ = std::thread([raw = p.get()] { raw->loop(); });
  return std::unique_ptr<LatencyProbe>(std::move(p));
}

IcmpLatencyProbe::~IcmpLatencyProbe() { (void)stop(); }

LatencyProbe::Summary IcmpLatencyProbe::stop() {
  if (thread_.joinable()) {
    uint64_t one = 1;
    // An eventfd write fails only at its counter's limit, and then the thread is woken already.
    [[maybe_unused]] const ssize_t woken = write(stop_fd_.get(), &one, sizeof one);
    thread_.join();
  }
  Summary s;
  s.sent = sent_;
  s.answered = static_cast<int>(rtts_ms_.size());
  s.reordered = reordered_;
  s.p50_ms = quantile(rtts_ms_, 0.50);
  s.p99_ms = quantile(rtts_ms_, 0.99);
  s.max_ms = quantile(rtts_ms_, 1.0);
  s.rtts_ms = rtts_ms_;
  return s;
}

// Sends on a fixed schedule (not "after the answer"), so a slow answer does not thin out
// the probes; answers are matched by sequence number to their send time.
void IcmpLatencyProbe::loop() {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(target_.value);
  std::vector<Clock::time_point> sent_at;
  std::vector<bool> answered;
  unsigned char packet[sizeof(icmphdr) + kPayload] = {};
  auto next = Clock::now();
  size_t highest_answered = 0;  // + 1; 0: none yet
  for (;;) {
    auto now = Clock::now();
    const bool sending = count_ <= 0 || sent_ < count_;
    if (sending && now >= next) {
      auto* icmp = reinterpret_cast<icmphdr*>(packet);
      icmp->type = ICMP_ECHO;
      icmp->code = 0;
      icmp->checksum = 0;
      icmp->un.echo.id = htons(id_);
      icmp->un.echo.sequence = htons(static_cast<uint16_t>(sent_at.size()));
      icmp->checksum = icmp_checksum(packet, sizeof packet);
      sent_at.push_back(now);
      answered.push_back(false);
      ++sent_;
      (void)sendto(sock_.get(), packet, sizeof packet, 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
      next += std::chrono::milliseconds(interval_ms_);
      continue;
    }
    pollfd fds[2] = {{sock_.get(), POLLIN, 0}, {stop_fd_.get(), POLLIN, 0}};
    int wait_ms =
        sending ? static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count()) + 1 : -1;
    if (poll(fds, 2, wait_ms) < 0 && errno != EINTR) return;
    if (fds[1].revents & POLLIN) return;
    if (!(fds[0].revents & POLLIN)) continue;
    unsigned char buf[2048];
    for (;;) {
      sockaddr_in from{};
      socklen_t flen = sizeof from;
      ssize_t got = recvfrom(sock_.get(), buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
      if (got < 0) break;
      auto at = Clock::now();
      uint16_t reply_seq = 0;
      size_t icmp_len = 0;
      if (!is_echo_reply(buf, got, Ipv4Addr{ntohl(from.sin_addr.s_addr)}, id_, target_, &reply_seq, &icmp_len))
        continue;
      // Sequence numbers wrap at 65536: more than 10 minutes at 10 ms, longer than any sample.
      size_t seq = reply_seq;
      if (seq >= sent_at.size() || answered[seq]) continue;
      answered[seq] = true;
      // Overtaken: a later echo was answered first (a jittered netem that may reorder, or a path's own).
      if (seq + 1 < highest_answered) ++reordered_;
      highest_answered = std::max(highest_answered, seq + 1);
      rtts_ms_.push_back(std::chrono::duration<double, std::milli>(at - sent_at[seq]).count());
    }
  }
}

}  // namespace vpnlab
