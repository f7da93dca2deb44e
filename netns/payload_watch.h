// Watches the frames on one interface of a namespace (AF_PACKET) for a byte pattern: the
// proof that an encrypted tunnel does not carry the payload in clear on the underlay.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

class PayloadWatch {
 public:
  // Starts watching interface `ifindex` in the namespace of `netns_fd` for `pattern`, and
  // counts the bytes of IPv4 UDP/TCP frames from or to `port` (0: none).
  static Result<std::unique_ptr<PayloadWatch>> start(int netns_fd, int ifindex, std::string pattern, int port = 0);
  virtual ~PayloadWatch();
  PayloadWatch(const PayloadWatch&) = delete;
  PayloadWatch& operator=(const PayloadWatch&) = delete;

  struct Summary {
    uint64_t frames = 0;
    uint64_t bytes = 0;
    uint64_t ipv4_bytes = 0;  // all IPv4 frames
    uint64_t port_bytes = 0;  // IPv4 UDP/TCP frames from or to the port
    uint64_t drops = 0;       // frames the kernel could not queue for us (a lossy sample)
    bool pattern_seen = false;
  };
  // Stops the watch and says what it saw. Virtual: a backend may watch elsewhere (the
  // hosts backend's agent).
  virtual Summary stop();

 protected:
  PayloadWatch() = default;

 private:
  void loop();
  UniqueFd sock_;
  UniqueFd stop_fd_;
  std::string pattern_;
  int port_ = 0;
  std::thread thread_;
  Summary summary_;
  bool stopped_ = false;
};

// iperf3 --repeating-payload fills its buffers with "0123456789" repeated; 40 bytes of
// it cannot appear by chance in ciphertext.
std::string iperf_repeating_pattern(size_t length = 40);

}  // namespace vpnlab
