// What an agent (a host's over ssh, a guest's) may send: every message the channel gives is a
// JSON object; anything else is an error, never a crash or a hang.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/agent/json_lines.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return 0;
  vpnlab::UniqueFd theirs(fds[1]);
  vpnlab::JsonLines ch{vpnlab::UniqueFd(fds[0])};
  // The input and an end: the socket buffer holds a fuzz input whole.
  size_t done = 0;
  while (done < size) {
    const ssize_t n = send(theirs.get(), data + done, size - done, MSG_NOSIGNAL);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  theirs.reset();
  for (int i = 0; i < 1000; ++i) {
    auto m = ch.receive(1000);
    if (!m) break;
    vpnlab::fuzz_check(m->is_object(), "a message is a JSON object");
  }
  return 0;
}
