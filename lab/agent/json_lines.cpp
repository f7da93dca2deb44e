#include "lab/agent/json_lines.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "lab/base/json_depth.h"
#include "lab/base/terminal_text.h"

namespace vpnlab {

Status JsonLines::send(const nlohmann::json& msg) {
  std::string line = msg.dump() + "\n";
  size_t off = 0;
  const int fd = out_.valid() ? out_.get() : fd_.get();
  while (off < line.size()) {
    // A socket whose peer died must give EPIPE, not kill the lab with SIGPIPE.
    ssize_t n = ::send(fd, line.data() + off, line.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {  // a virtio port whose other side is slow to read
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 100);
      continue;
    }
    if (n < 0) return make_error("write to channel: " + errno_text(errno));
    off += static_cast<size_t>(n);
  }
  return ok_status();
}

Result<nlohmann::json> JsonLines::receive(int timeout_ms, int interrupt_fd) {
  using clock = std::chrono::steady_clock;
  auto deadline = clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  for (;;) {
    if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (line.empty()) continue;
      std::string problem = "not an object";
      auto j = parse_json_bounded(line, &problem);
      if (j.is_discarded() || !j.is_object())
        return make_error("malformed message on channel (" + problem + "): " + terminal_safe(line.substr(0, 120)));
      return j;
    }
    if (eof_) return make_error("channel closed by the other side");
    int wait_ms = -1;
    if (timeout_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
      if (left <= 0) return make_error("no answer within " + std::to_string(timeout_ms) + " ms");
      wait_ms = static_cast<int>(left);
    }
    pollfd fds[2] = {{fd_.get(), POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
    int r = ::poll(fds, interrupt_fd >= 0 ? 2 : 1, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return make_error("poll on channel: " + errno_text(errno));
    if (interrupt_fd >= 0 && (fds[1].revents & POLLIN)) return make_error("interrupted");
    if (r == 0) continue;
    char buf[65536];
    ssize_t n = ::read(fd_.get(), buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return make_error("read from channel: " + errno_text(errno));
    if (n == 0) {
      eof_ = true;
      continue;
    }
    buffer_.append(buf, static_cast<size_t>(n));
    if (buffer_.size() > kMaxJsonLineBytes && buffer_.find('\n') == std::string::npos)
      return make_error("a line on the channel is longer than " + std::to_string(kMaxJsonLineBytes >> 20) +
                        " MiB: not a message");
  }
}

static Result<sockaddr_un> unix_address(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path)
    return make_error("socket path '" + path + "' is longer than " + std::to_string(sizeof a.sun_path - 1) + " bytes",
                      "use a shorter --out directory");
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return a;
}

Result<UniqueFd> connect_unix(const std::string& path) {
  auto a = unix_address(path);
  if (!a) return a.error();
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return make_error("socket: " + errno_text(errno));
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&*a), sizeof *a) < 0)
    return make_error("connect to " + path + ": " + errno_text(errno));
  return fd;
}

Result<UniqueFd> listen_unix(const std::string& path) {
  auto a = unix_address(path);
  if (!a) return a.error();
  ::unlink(path.c_str());
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return make_error("socket: " + errno_text(errno));
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&*a), sizeof *a) < 0)
    return make_error("bind " + path + ": " + errno_text(errno));
  if (::listen(fd.get(), 4) < 0) return make_error("listen on " + path + ": " + errno_text(errno));
  return fd;
}

nlohmann::json agent_failure(const Error& e) { return {{"ok", false}, {"error", e.message}, {"hint", e.hint}}; }
nlohmann::json agent_done(const Status& s) { return s ? nlohmann::json{{"ok", true}} : agent_failure(s.error()); }

}  // namespace vpnlab
