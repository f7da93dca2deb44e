#include "lab/kernel/payload_watch.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <cstring>
#include <vector>

#include "lab/kernel/namespace.h"

namespace vpnlab {

namespace {
bool is_ipv4(const unsigned char* f, size_t n) { return n >= 14 + 20 && f[12] == 0x08 && f[13] == 0x00; }

// Ethernet + IPv4 + UDP/TCP: true if either port equals `port`.
bool frame_uses_port(const unsigned char* f, size_t n, int port) {
  if (!is_ipv4(f, n) || n < 14 + 20 + 4) return false;
  const unsigned char* ip = f + 14;
  size_t ihl = static_cast<size_t>(ip[0] & 0x0f) * 4;
  if (ip[9] != IPPROTO_UDP && ip[9] != IPPROTO_TCP) return false;
  if (n < 14 + ihl + 4) return false;
  const unsigned char* l4 = ip + ihl;
  int sport = l4[0] << 8 | l4[1], dport = l4[2] << 8 | l4[3];
  return sport == port || dport == port;
}
}  // namespace

Result<std::unique_ptr<PayloadWatch>> PacketPayloadWatch::start(int netns_fd, int ifindex, std::string pattern,
                                                                int port) {
  std::unique_ptr<PacketPayloadWatch> w(new PacketPayloadWatch());
  int err = 0;
  if (auto s = run_in_netns(netns_fd,
                            [&] {
                              w->sock_.reset(socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL)));
                              err = errno;
                            });
      !s)
    return s.error();
  if (!w->sock_.valid())
    return make_error("packet capture: cannot open an AF_PACKET socket: " + errno_text(err), "run vpnlab as root");
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(ETH_P_ALL);
  addr.sll_ifindex = ifindex;
  if (bind(w->sock_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0)
    return make_error("packet capture: cannot bind to interface " + std::to_string(ifindex) + ": " + errno_text(errno));
  // A large queue: the watch runs next to a full-speed sample on a small machine.
  int rcvbuf = 64 << 20;
  setsockopt(w->sock_.get(), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf);
  w->stop_fd_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  w->pattern_ = std::move(pattern);
  w->port_ = port;
  w->thread_ = std::thread([p = w.get()] { p->loop(); });
  return std::unique_ptr<PayloadWatch>(std::move(w));
}

void PacketPayloadWatch::loop() {
  std::vector<char> buf(65536 + 256);
  // Reads one queued frame; false when none is queued.
  auto take = [&] {
    ssize_t n = recv(sock_.get(), buf.data(), buf.size(), MSG_DONTWAIT);
    if (n <= 0) return false;
    ++summary_.frames;
    summary_.bytes += static_cast<uint64_t>(n);
    const auto* frame = reinterpret_cast<unsigned char*>(buf.data());
    if (is_ipv4(frame, static_cast<size_t>(n))) summary_.ipv4_bytes += static_cast<uint64_t>(n);
    if (port_ && frame_uses_port(frame, static_cast<size_t>(n), port_)) summary_.port_bytes += static_cast<uint64_t>(n);
    if (!summary_.pattern_seen && memmem(buf.data(), static_cast<size_t>(n), pattern_.data(), pattern_.size()))
      summary_.pattern_seen = true;
    return true;
  };
  for (;;) {
    pollfd fds[2] = {{sock_.get(), POLLIN, 0}, {stop_fd_.get(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents & POLLIN) {
      while (take()) {
      }  // drain what is already queued, so nothing sent goes unseen
      return;
    }
    if (fds[0].revents & POLLIN) take();
  }
}

PayloadWatch::Summary PacketPayloadWatch::stop() {
  if (!stopped_ && thread_.joinable()) {
    stopped_ = true;
    uint64_t one = 1;
    (void)!write(stop_fd_.get(), &one, sizeof one);
    thread_.join();
    tpacket_stats stats{};
    socklen_t len = sizeof stats;
    if (getsockopt(sock_.get(), SOL_PACKET, PACKET_STATISTICS, &stats, &len) == 0) summary_.drops = stats.tp_drops;
  }
  return summary_;
}

PacketPayloadWatch::~PacketPayloadWatch() { stop(); }

}  // namespace vpnlab
