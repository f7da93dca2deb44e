// vpnlab-agent: in a guest it runs as PID 1 and serves the virtio port (vm/guest_agent.h);
// with --stdio it is a host's agent, started by the controller over ssh (hosts/host_agent.h).
#include <cstdio>
#include <cstring>

#include "hosts/host_agent.h"
#include "vm/guest_agent.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--stdio") == 0) return vpnlab::serve_host_agent(0, 1);
  if (argc == 1) return vpnlab::serve_guest_agent();
  std::fprintf(stderr, "usage: vpnlab-agent [--stdio]\n  started by vpnlab: in a guest (no argument) or on a host over ssh (--stdio)\n");
  return 2;
}
