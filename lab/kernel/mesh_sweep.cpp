#include "lab/kernel/mesh_sweep.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "lab/base/unique_fd.h"
#include "lab/kernel/namespace.h"
#include "lab/kernel/probes.h"

namespace vpnlab {
namespace {

using Clock = std::chrono::steady_clock;

struct Prober {
  const SweepSource* source = nullptr;
  UniqueFd sock;
  uint16_t id = 0;
  std::unordered_map<uint32_t, size_t> index_of;  // target address -> index
  std::vector<const double*> after;               // the reverse pair's answer time when it goes first
  std::vector<double> answered_at;                // -1 until the pair answered
  size_t left = 0;
};

void send_echo(Prober& p, size_t target, uint16_t seq) {
  unsigned char packet[sizeof(icmphdr) + 16] = {};
  auto* icmp = reinterpret_cast<icmphdr*>(packet);
  icmp->type = ICMP_ECHO;
  icmp->un.echo.id = htons(p.id);
  icmp->un.echo.sequence = htons(seq);
  icmp->checksum = icmp_checksum(packet, sizeof packet);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(p.source->targets[target].value);
  // A send that fails (no route while the tunnel comes up) is simply tried next round.
  (void)sendto(p.sock.get(), packet, sizeof packet, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&to), sizeof to);
}

// Reads every reply queued on the prober's socket.
void take_replies(Prober& p, double now_s) {
  for (;;) {
    unsigned char buf[2048];
    sockaddr_in from{};
    socklen_t flen = sizeof from;
    ssize_t got = recvfrom(p.sock.get(), buf, sizeof buf, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &flen);
    if (got < 0) return;
    Ipv4Addr addr{ntohl(from.sin_addr.s_addr)};
    auto it = p.index_of.find(addr.value);
    if (it == p.index_of.end() || p.answered_at[it->second] >= 0) continue;
    uint16_t seq = 0;
    size_t len = 0;
    if (!is_echo_reply(buf, got, addr, p.id, addr, &seq, &len)) continue;
    p.answered_at[it->second] = now_s;
    --p.left;
  }
}

}  // namespace

Result<SweepResult> sweep_until_answered(const std::vector<SweepSource>& sources, double timeout_s, int interrupt_fd) {
  std::vector<Prober> probers(sources.size());
  SweepResult out;
  for (size_t i = 0; i < sources.size(); ++i) {
    Prober& p = probers[i];
    p.source = &sources[i];
    int err = 0;
    if (auto s = run_in_netns(sources[i].netns_fd,
                              [&] {
                                p.sock.reset(socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_ICMP));
                                err = errno;
                              });
        !s)
      return with_context(s.error(), "node '" + sources[i].name + "'");
    if (!p.sock.valid())
      return make_error("node '" + sources[i].name + "': cannot open an ICMP socket: " + errno_text(err),
                        "run vpnlab as root");
    p.id = static_cast<uint16_t>(0x5e00 + i);
    for (size_t t = 0; t < sources[i].targets.size(); ++t) p.index_of[sources[i].targets[t].value] = t;
    p.answered_at.assign(sources[i].targets.size(), -1);
    p.left = sources[i].targets.size();
    out.pairs += p.left;
  }
  const int round_ms = std::max<int>(100, static_cast<int>(out.pairs / 10));
  // The reverse of an earlier source's pair waits for that pair's answer.
  std::unordered_map<uint32_t, size_t> source_of;
  for (size_t i = 0; i < sources.size(); ++i) source_of[sources[i].self.value] = i;
  for (size_t i = 0; i < probers.size(); ++i) {
    probers[i].after.assign(sources[i].targets.size(), nullptr);
    for (size_t t = 0; t < sources[i].targets.size(); ++t) {
      auto j = source_of.find(sources[i].targets[t].value);
      if (j == source_of.end() || j->second >= i) continue;
      auto back = probers[j->second].index_of.find(sources[i].self.value);
      if (back != probers[j->second].index_of.end())
        probers[i].after[t] = &probers[j->second].answered_at[back->second];
    }
  }
  std::vector<pollfd> fds;
  for (const auto& p : probers) fds.push_back({p.sock.get(), POLLIN, 0});
  if (interrupt_fd >= 0) fds.push_back({interrupt_fd, POLLIN, 0});
  const auto t0 = Clock::now();
  auto since = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  size_t left = out.pairs;
  for (uint16_t seq = 1; left > 0 && since() < timeout_s; ++seq) {
    for (auto& p : probers)
      for (size_t t = 0; t < p.answered_at.size(); ++t)
        if (p.answered_at[t] < 0 && (!p.after[t] || *p.after[t] >= 0)) send_echo(p, t, seq);
    const double round_end = since() + round_ms / 1000.0;
    while (left > 0 && since() < round_end) {
      int wait_ms = std::max(1, static_cast<int>((round_end - since()) * 1000));
      if (poll(fds.data(), fds.size(), wait_ms) <= 0) continue;
      if (interrupt_fd >= 0 && (fds.back().revents & POLLIN)) return make_error("mesh probe: interrupted");
      left = 0;
      for (size_t i = 0; i < probers.size(); ++i) {
        if (fds[i].revents & POLLIN) take_replies(probers[i], since());
        left += probers[i].left;
      }
    }
  }
  std::vector<double> firsts;
  for (const auto& p : probers)
    for (size_t t = 0; t < p.answered_at.size(); ++t) {
      if (p.answered_at[t] >= 0)
        firsts.push_back(p.answered_at[t]);
      else if (out.first_missing.empty())
        out.first_missing =
            p.source->name + " -> " +
            (t < p.source->target_names.size() ? p.source->target_names[t] : p.source->targets[t].str());
    }
  out.answered = firsts.size();
  if (!firsts.empty()) {
    std::sort(firsts.begin(), firsts.end());
    out.median_first_s = firsts[firsts.size() / 2];
    if (out.answered == out.pairs) out.all_answered_s = firsts.back();
  }
  return out;
}

}  // namespace vpnlab
