// Watches the frames on one interface of a namespace (AF_PACKET) for a byte pattern: the
// proof that an encrypted tunnel does not carry the payload in clear on the underlay.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

// The PayloadWatch of this kernel: an AF_PACKET socket in the namespace.
class PacketPayloadWatch final : public PayloadWatch {
 public:
  // Starts watching interface `ifindex` in the namespace of `netns_fd` for `pattern`, and
  // counts the bytes of IPv4 UDP/TCP frames from or to `port` (0: none).
  static Result<std::unique_ptr<PayloadWatch>> start(int netns_fd, int ifindex, std::string pattern, int port = 0);
  ~PacketPayloadWatch() override;
  PacketPayloadWatch(const PacketPayloadWatch&) = delete;
  PacketPayloadWatch& operator=(const PacketPayloadWatch&) = delete;
  Summary stop() override;

 private:
  PacketPayloadWatch() = default;
  void loop();
  UniqueFd sock_;
  UniqueFd stop_fd_;
  std::string pattern_;
  int port_ = 0;
  std::thread thread_;
  Summary summary_;
  bool stopped_ = false;
};

}  // namespace vpnlab
