#include "lab/run/interrupt.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>

#include "lab/base/pidfd.h"

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
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  // A closed terminal or a dropped SSH session (SIGHUP) ends the run like Ctrl-C: stop the
  // sample, tear down, keep the rows.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  return g_fd;
}

void ignore_broken_pipes() {
  // A reader that went away (`| head`, a dying `| tee`) must not kill vpnlab mid-run: with
  // SIGPIPE ignored a write to the pipe fails with EPIPE, output is lost and the run goes
  // on to its end and its teardown. Children get the default back before exec.
  signal(SIGPIPE, SIG_IGN);
}

int interrupt_fd() { return g_fd; }
bool interrupted() { return g_signal.load() != 0; }

bool measurement_window_interrupted(int interrupt_fd, int ms) {
  pollfd pfd{interrupt_fd, POLLIN, 0};
  return poll(&pfd, interrupt_fd >= 0 ? 1 : 0, ms) > 0 || interrupted();
}
int interrupt_signal() { return g_signal.load(); }

}  // namespace vpnlab
