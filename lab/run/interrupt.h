// SIGINT/SIGTERM/SIGHUP become an event: an eventfd that every wait polls next to its own fd,
// so an interrupted run stops the current step promptly and then tears down in order.
#pragma once

namespace vpnlab {

// Installs the handlers (once). Returns the fd to poll (readable once interrupted). A
// second signal also makes teardown hurry (no grace periods; everything still removed).
int install_interrupt_handlers();
int interrupt_fd();
// SIGPIPE ignored for the whole process: a closed pipe on stdout or stderr stops the
// output, not the run (whose results go to files).
void ignore_broken_pipes();
bool interrupted();
// A measurement window of `ms`, not a wait for an event: it ends early only when
// `interrupt_fd` (or, without one, the signal) says the run is interrupted. True then.
bool measurement_window_interrupted(int interrupt_fd, int ms);
int interrupt_signal();  // the signal that arrived, 0 if none

}  // namespace vpnlab
