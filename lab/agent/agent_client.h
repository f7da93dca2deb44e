// The host side of a guest's agent channel (QEMU listens on a unix socket per guest).
// Requests carry a sequence number; answers to earlier ones (a hello repeated while the
// guest booted) are skipped.
#pragma once
#include <poll.h>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lab/agent/json_lines.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

struct GuestHello {
  std::string kernel;
  double uptime_s = 0;
};

// A link's counters as the agents send them ("get_link") and the runtimes read them.
nlohmann::json link_info_json(const LinkInfo& l);
LinkInfo link_info_from_json(const nlohmann::json& j);

class AgentClient {
 public:
  // Connects to the guest's channel and repeats "hello" until the agent answers or
  // timeout_s passes (there is no event for "the guest finished booting").
  static Result<std::unique_ptr<AgentClient>> connect(const std::string& socket, double timeout_s, int interrupt_fd,
                                                      GuestHello* hello);
  // An agent already running at the other end of `fd` (a host's, over ssh). `where` names
  // it in errors ("on host 'h1'").
  static std::unique_ptr<AgentClient> over(UniqueFd fd, std::string where);
  // One request, its answer; an answer with ok=false becomes an error. Thread-safe: the
  // runtime's exit watcher and the runner share the channel, one request at a time.
  // `interrupt_fd` readable (Ctrl-C, SIGTERM) ends the wait at once with "interrupted"; the
  // late answer is skipped by the next call as an earlier seq's.
  Result<nlohmann::json> call(nlohmann::json req, int timeout_ms = 10000, int interrupt_fd = -1);
  // The channel is gone (the other side closed it, or a write found it broken): every later
  // call fails at once. Readable from any thread, while another waits in call().
  bool lost() const { return lost_; }

  // A process in the guest: started with spawn, waited or stopped by id.
  struct Spawn {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;
    std::vector<int> cpus;
    std::string stdout_path, stderr_path, cwd;
    std::string node;          // the node to start it in (a host agent runs several)
    bool private_run = false;  // a host agent: in the node's private /run (products)
  };
  Result<int> spawn(const Spawn& s);
  // Waits up to timeout_s for process `id`; the exit status once it has exited.
  Result<std::optional<int>> wait(int id, double timeout_s, int interrupt_fd = -1);
  // TERM, grace, KILL; "already gone" is success. True if KILL was needed.
  Result<bool> stop(int id, int grace_ms = 2000);

 private:
  explicit AgentClient(UniqueFd fd, std::string where = "in the guest")
      : ch_(std::move(fd)), where_(std::move(where)) {}
  JsonLines ch_;
  std::string where_;
  long seq_ = 0;
  std::chrono::steady_clock::time_point left_running_until_{};  // an interrupted call's deadline
  std::mutex mu_;
  std::atomic<bool> lost_{false};
};

}  // namespace vpnlab
