// emulated-hosts DIR: two emulated hosts (tests/support/emulated_hosts.h) for trying the
// hosts backend by hand. Prints their [[host]] tables and how to run vpnlab in the
// controller namespace, then keeps them until Enter or Ctrl-C; they go with this process.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <thread>

#include "tests/support/emulated_hosts.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: emulated-hosts DIR   (DIR: an empty directory for keys and sshd logs)\n";
    return 2;
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  auto eh = vpnlab::testing::EmulatedHosts::start(argv[1]);
  if (!eh) {
    std::cerr << "emulated-hosts: " << eh.error().format() << "\n";
    return 1;
  }
  std::cout << (*eh)->hosts_toml() << "# controller: nsenter --net=/proc/" << getpid() << "/fd/"
            << (*eh)->controller_netns_fd() << " ./build/lab/vpnlab run FILE\n# Enter or Ctrl-C ends the hosts\n"
            << std::flush;
  // The namespaces are held by this process's fds; wait for Enter or a signal.
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([] {
    std::cin.get();
    kill(getpid(), SIGTERM);
  }).detach();
  int sig = 0;
  sigwait(&set, &sig);
  return 0;
}
