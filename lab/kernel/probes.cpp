#include "lab/kernel/probes.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include <netlink/cache.h>
#include <netlink/idiag/idiagnl.h>
#include <netlink/idiag/msg.h>
#include <netlink/netlink.h>

#include "lab/base/unique_fd.h"
#include "lab/kernel/namespace.h"

namespace vpnlab {

namespace {

using Clock = std::chrono::steady_clock;

bool interrupted(int interrupt_fd) {
  if (interrupt_fd < 0) return false;
  pollfd p{interrupt_fd, POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

}  // namespace

uint16_t icmp_checksum(const unsigned char* data, size_t len) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < len; i += 2) sum += static_cast<uint32_t>(data[i] << 8 | data[i + 1]);
  if (len & 1) sum += static_cast<uint32_t>(data[len - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return htons(static_cast<uint16_t>(~sum));
}

bool is_echo_reply(const unsigned char* buf, long got, Ipv4Addr from, uint16_t id, Ipv4Addr target, uint16_t* seq,
                   size_t* icmp_len) {
  if (got < static_cast<long>(sizeof(iphdr))) return false;
  size_t ihl = static_cast<size_t>(buf[0] & 0x0f) * 4;
  if (got < static_cast<long>(ihl + sizeof(icmphdr))) return false;
  const auto* reply = reinterpret_cast<const icmphdr*>(buf + ihl);
  if (reply->type != ICMP_ECHOREPLY || ntohs(reply->un.echo.id) != id || from != target) return false;
  *seq = ntohs(reply->un.echo.sequence);
  *icmp_len = static_cast<size_t>(got) - ihl;
  return true;
}

Status ping_until_answered(int netns_fd, Ipv4Addr target, double timeout_s, int interrupt_fd, double* rtt_ms, int size,
                           bool dont_fragment) {
  UniqueFd sock;
  int err = 0;
  if (auto s = run_in_netns(netns_fd,
                            [&] {
                              sock.reset(socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP));
                              err = errno;
                            });
      !s)
    return s;
  if (!sock.valid())
    return make_error("ping " + target.str() + ": cannot open an ICMP socket: " + errno_text(err),
                      "run vpnlab as root");
  if (dont_fragment) {
    int pmtu = IP_PMTUDISC_DO;
    setsockopt(sock.get(), IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof pmtu);
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(target.value);
  const uint16_t id = static_cast<uint16_t>(std::random_device{}());
  std::vector<unsigned char> packet(sizeof(icmphdr) + static_cast<size_t>(size), 0xa5);
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  std::string last_error = "no answer";
  for (uint16_t seq = 1; Clock::now() < deadline; ++seq) {
    auto* icmp = reinterpret_cast<icmphdr*>(packet.data());
    icmp->type = ICMP_ECHO;
    icmp->code = 0;
    icmp->checksum = 0;
    icmp->un.echo.id = htons(id);
    icmp->un.echo.sequence = htons(seq);
    icmp->checksum = icmp_checksum(packet.data(), packet.size());
    auto sent_at = Clock::now();
    if (sendto(sock.get(), packet.data(), packet.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0)
      last_error = "send: " + errno_text(errno);  // e.g. no route yet while the tunnel comes up
    // One probe waits up to 100 ms for its answer, then the next one goes out.
    auto probe_end = std::min(deadline, sent_at + std::chrono::milliseconds(100));
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(probe_end - Clock::now()).count();
      if (left < 0) break;
      pollfd fds[2] = {{sock.get(), POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
      int n = poll(fds, interrupt_fd >= 0 ? 2 : 1, static_cast<int>(left) + 1);
      if (n <= 0) break;
      if (interrupt_fd >= 0 && (fds[1].revents & POLLIN)) return make_error("ping " + target.str() + ": interrupted");
      unsigned char buf[65536];
      sockaddr_in from{};
      socklen_t flen = sizeof from;
      ssize_t got = recvfrom(sock.get(), buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
      uint16_t reply_seq = 0;
      size_t icmp_len = 0;
      if (!is_echo_reply(buf, got, Ipv4Addr{ntohl(from.sin_addr.s_addr)}, id, target, &reply_seq, &icmp_len)) continue;
      if (icmp_len != packet.size()) continue;  // a full-size probe must come back whole
      if (rtt_ms) *rtt_ms = std::chrono::duration<double, std::milli>(Clock::now() - sent_at).count();
      return ok_status();
    }
  }
  return make_error("ping " + target.str() + " (" + std::to_string(size) + " bytes" + (dont_fragment ? ", DF" : "") +
                        "): no answer within " + std::to_string(timeout_s).substr(0, 4) + " s (" + last_error + ")",
                    "the tunnel did not pass traffic; see the product's logs");
}

Status wait_tcp_listening(int netns_fd, int port, double timeout_s, int interrupt_fd) {
  nl_sock* raw = nullptr;
  int err = 0;
  if (auto s = run_in_netns(netns_fd,
                            [&] {
                              raw = nl_socket_alloc();
                              if (raw) err = idiagnl_connect(raw);
                            });
      !s)
    return s;
  if (!raw) return make_error("sock_diag: cannot allocate a netlink socket");
  std::unique_ptr<nl_sock, void (*)(nl_sock*)> sock(raw, nl_socket_free);
  if (err < 0) return make_error(std::string("sock_diag: cannot connect: ") + nl_geterror(err));
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = std::chrono::microseconds(250);
  for (;;) {
    nl_cache* cache = nullptr;
    err = idiagnl_msg_alloc_cache(sock.get(), AF_INET, 1 << TCP_LISTEN, &cache);
    if (err < 0) return make_error(std::string("sock_diag: cannot list sockets: ") + nl_geterror(err));
    bool found = false;
    // libnl 3.7 hands the port back in network byte order; a fixed libnl would not.
    // Either way the namespace is ours and fresh, so the swapped number cannot clash.
    for (nl_object* o = nl_cache_get_first(cache); o && !found; o = nl_cache_get_next(o)) {
      uint16_t sport = idiagnl_msg_get_sport(reinterpret_cast<idiagnl_msg*>(o));
      found = sport == port || sport == htons(static_cast<uint16_t>(port));
    }
    nl_cache_free(cache);
    if (found) return ok_status();
    if (interrupted(interrupt_fd))
      return make_error("interrupted while waiting for a listener on port " + std::to_string(port));
    if (Clock::now() >= deadline)
      return make_error("nothing listens on TCP port " + std::to_string(port) + " after " +
                            std::to_string(static_cast<int>(timeout_s)) + " s",
                        "see the server's log");
    std::this_thread::sleep_for(pause);  // bounded probe: there is no "socket listening" event
    pause = std::min(pause * 2, std::chrono::microseconds(10000));
  }
}

}  // namespace vpnlab
