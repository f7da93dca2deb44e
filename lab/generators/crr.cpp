#include "lab/generators/crr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <nlohmann/json.hpp>

#include "lab/base/unique_fd.h"

namespace vpnlab {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kIoTimeoutMs = 5000;  // one transaction stalled this long is an error, not a hang

// Moves exactly `size` bytes in one direction; false on error, EOF or timeout.
bool move_bytes(int fd, char* buf, int size, bool sending) {
  for (int done = 0; done < size;) {
    pollfd p{fd, static_cast<short>(sending ? POLLOUT : POLLIN), 0};
    if (poll(&p, 1, kIoTimeoutMs) <= 0) return false;
    ssize_t n = sending ? send(fd, buf + done, size - done, MSG_NOSIGNAL) : recv(fd, buf + done, size - done, 0);
    if (n <= 0) return false;
    done += static_cast<int>(n);
  }
  return true;
}

// rr's hot loop: one blocking send or recv per piece, the socket's own timeouts
// (set_io_timeouts) in place of a poll before each; a poll per direction cost rr 11 % of its
// transactions against sockperf's blocking calls on the same path.
bool move_bytes_blocking(int fd, char* buf, int size, bool sending) {
  for (int done = 0; done < size;) {
    ssize_t n = sending ? send(fd, buf + done, size - done, MSG_NOSIGNAL) : recv(fd, buf + done, size - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EAGAIN: the timeout passed
    done += static_cast<int>(n);
  }
  return true;
}

void set_io_timeouts(int fd) {
  timeval tv{kIoTimeoutMs / 1000, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

bool wait_eof(int fd) {
  char c;
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, kIoTimeoutMs) > 0 && recv(fd, &c, 1, 0) == 0;
}

std::string errno_now(const char* what) { return std::string(what) + ": " + strerror(errno); }

Result<UniqueFd> listen_on(int port, int ready_fd) {
  UniqueFd ls(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!ls.valid()) return make_error(errno_now("socket"));
  int one = 1;
  setsockopt(ls.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(ls.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) return make_error(errno_now("bind"));
  if (listen(ls.get(), 128) < 0) return make_error(errno_now("listen"));
  if (ready_fd >= 0) (void)!write(ready_fd, "r", 1);
  return ls;
}

// The next connection, with Nagle off (a transaction is one small write each way).
Result<UniqueFd> accept_one(int listening) {
  for (;;) {
    UniqueFd c(accept4(listening, nullptr, nullptr, SOCK_CLOEXEC));
    if (c.valid()) {
      const int one = 1;
      setsockopt(c.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return c;
    }
    if (errno != EINTR && errno != ECONNABORTED) return make_error(errno_now("accept"));
  }
}

bool parse_address(const std::string& address, int port, sockaddr_in* a, CrrResult* r) {
  a->sin_family = AF_INET;
  a->sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &a->sin_addr) == 1) return true;
  r->errors = 1;
  r->first_error = "not an IPv4 address: " + address;
  return false;
}

// Serves one connection at a time, each handed to `serve` with a buffer of `size` bytes.
template <typename Serve>
Status serve_each(int port, int size, int ready_fd, Serve serve) {
  auto ls = listen_on(port, ready_fd);
  if (!ls) return ls.error();
  std::vector<char> buf(size);
  for (;;) {
    auto c = accept_one(ls->get());
    if (!c) return c.error();
    serve(c->get(), buf.data());
  }
}

}  // namespace

Status crr_serve(int port, int size, int ready_fd) {
  return serve_each(port, size, ready_fd, [size](int fd, char* buf) {
    if (move_bytes(fd, buf, size, false)) move_bytes(fd, buf, size, true);
    // Closing here, first: TIME_WAIT stays on this side.
  });
}

Status rr_serve(int port, int size, int ready_fd) {
  return serve_each(port, size, ready_fd, [size](int fd, char* buf) {
    set_io_timeouts(fd);
    while (move_bytes_blocking(fd, buf, size, false) && move_bytes_blocking(fd, buf, size, true)) {
    }
  });
}

CrrResult crr_run(const std::string& address, int port, int size, double seconds) {
  CrrResult r;
  sockaddr_in a{};
  if (!parse_address(address, port, &a, &r)) return r;
  std::vector<char> buf(size, 'q');
  const int one = 1;
  auto fail = [&](const std::string& why) {
    if (r.errors++ == 0) r.first_error = why;
  };
  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (auto now = start; now < end; now = Clock::now()) {
    UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
      fail(errno_now("socket"));
      break;
    }
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) {
      fail(errno_now("connect"));
      // A refused connect returns at once: do not spin through the sample on it.
      if (r.errors > 100 && r.connections == 0) break;
      continue;
    }
    if (!move_bytes(fd.get(), buf.data(), size, true) || !move_bytes(fd.get(), buf.data(), size, false)) {
      fail("request/response " + std::string(errno ? strerror(errno) : "ended early"));
      continue;
    }
    r.ms.add(std::chrono::duration<double, std::milli>(Clock::now() - now).count());
    ++r.connections;
    ++r.transactions;
    if (!wait_eof(fd.get())) fail("the server did not close the connection");
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

CrrResult rr_run(const std::string& address, int port, int size, double seconds) {
  CrrResult r;
  sockaddr_in a{};
  if (!parse_address(address, port, &a, &r)) return r;
  std::vector<char> buf(size, 'q');
  auto fail = [&](const std::string& why) {
    if (r.errors++ == 0) r.first_error = why;
  };
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int one = 1;
  if (fd.valid()) setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (!fd.valid() || connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) {
    fail(errno_now(fd.valid() ? "connect" : "socket"));
    return r;
  }
  r.connections = 1;
  set_io_timeouts(fd.get());
  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (auto now = start; now < end;) {
    if (!move_bytes_blocking(fd.get(), buf.data(), size, true) ||
        !move_bytes_blocking(fd.get(), buf.data(), size, false)) {
      fail("request/response " + std::string(errno ? strerror(errno) : "ended early"));
      break;  // the one connection is gone: nothing more to measure on it
    }
    const Clock::time_point done = Clock::now();
    r.ms.add(std::chrono::duration<double, std::milli>(done - now).count());
    ++r.transactions;
    now = done;
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

std::string crr_json(const CrrResult& r) {
  nlohmann::json j = {
      {"connections", r.connections},  {"transactions", r.transactions}, {"errors", r.errors},
      {"seconds", r.seconds},          {"p50_ms", r.ms.quantile(0.50)},  {"p90_ms", r.ms.quantile(0.90)},
      {"p99_ms", r.ms.quantile(0.99)}, {"p999_ms", r.ms.quantile(0.999)}};
  if (!r.first_error.empty()) j["first_error"] = r.first_error;
  return j.dump() + "\n";
}

}  // namespace vpnlab
