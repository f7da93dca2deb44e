#include "lab/interrupt.h"

#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>

#include "netns/pidfd.h"

namespace vpnlab {

namespace {
int g_fd = -1;
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  int saved = errno;
  // A second interrupt: the user is waiting; teardown skips its grace periods.
  if (g_signal.exchange(sig) != 0) set_hurry();
  uint64_t one = 1;
  if (g_fd >= 0) (void)!write(g_fd, &one, sizeof one);  // async-signal-safe
  errno = saved;
}
}  // namespace

int install_interrupt_handlers() {
  if (g_fd >= 0) return g_fd;
  g_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return g_fd;
}

int interrupt_fd() { return g_fd; }
bool interrupted() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }

}  // namespace vpnlab
