// One JSON object per line over a stream fd: the protocol of the VM-host helper and of
// the guest agent. Reads are bounded by a timeout and can be interrupted (SIGINT fd).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

// The longest line the other side may send: an answer is a few KiB; a line that never ends
// must not grow vpnlab until the call times out.
inline constexpr size_t kMaxJsonLineBytes = 16u << 20;

class JsonLines {
 public:
  explicit JsonLines(UniqueFd fd) : fd_(std::move(fd)) {}
  // Reads from `in`, writes to `out` (a process's stdin and stdout).
  JsonLines(UniqueFd in, UniqueFd out) : fd_(std::move(in)), out_(std::move(out)) {}
  int fd() const { return fd_.get(); }
  Status send(const nlohmann::json& msg);
  // The next message; error on timeout, EOF, a malformed line, or `interrupt_fd` readable.
  // timeout_ms < 0 waits forever.
  Result<nlohmann::json> receive(int timeout_ms, int interrupt_fd = -1);
  bool at_eof() const { return eof_; }

 private:
  UniqueFd fd_;
  UniqueFd out_;  // invalid: fd_ both ways
  std::string buffer_;
  bool eof_ = false;
};

// An agent's answer: {"ok": false, "error", "hint"} for a failure, {"ok": true} for a status.
nlohmann::json agent_failure(const Error& e);
nlohmann::json agent_done(const Status& s);

// Connects to a unix stream socket.
Result<UniqueFd> connect_unix(const std::string& path);
// Listens on a unix stream socket (an old file at `path` is replaced).
Result<UniqueFd> listen_unix(const std::string& path);

}  // namespace vpnlab
