// The host side of a guest's agent channel (QEMU listens on a unix socket per guest).
// Requests carry a sequence number; answers to earlier ones (a hello repeated while the
// guest booted) are skipped.
#pragma once
#include <memory>
#include <string>
#include <vector>
#include <map>
#include <mutex>
#include <optional>
#include <poll.h>

#include "vm/json_lines.h"

namespace vpnlab {

struct GuestHello {
  std::string kernel;
  double uptime_s = 0;
};

class AgentClient {
 public:
  // Connects to the guest's channel and repeats "hello" until the agent answers or
  // timeout_s passes (there is no event for "the guest finished booting").
  static Result<std::unique_ptr<AgentClient>> connect(const std::string& socket, double timeout_s, int interrupt_fd,
                                                      GuestHello* hello);
  // One request, its answer; an answer with ok=false becomes an error. Thread-safe: the
  // runtime's exit watcher and the runner share the channel, one request at a time.
  Result<nlohmann::json> call(nlohmann::json req, int timeout_ms = 10000);

  // A process in the guest: started with spawn, waited or stopped by id.
  struct Spawn {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;
    std::vector<int> cpus;
    std::string stdout_path, stderr_path, cwd;
  };
  Result<int> spawn(const Spawn& s);
  // Waits up to timeout_s for process `id`; the exit status once it has exited.
  Result<std::optional<int>> wait(int id, double timeout_s, int interrupt_fd = -1);
  // TERM, grace, KILL; "already gone" is success. True if KILL was needed.
  Result<bool> stop(int id, int grace_ms = 2000);

 private:
  explicit AgentClient(UniqueFd fd) : ch_(std::move(fd)) {}
  JsonLines ch_;
  long seq_ = 0;
  std::mutex mu_;
};

}  // namespace vpnlab
