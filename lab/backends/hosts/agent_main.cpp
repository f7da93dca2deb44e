// vpnlab-host-agent --stdio: a host's agent, started by the controller over ssh
// (lab/backends/hosts/host_agent.h). Apart from the guests' vpnlab-agent, which must link no more than
// the launcher and netlink; this one builds its part with the netns backend.
#include <cstdio>
#include <cstring>

#include "lab/backends/hosts/host_agent.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--stdio") == 0) return vpnlab::serve_host_agent(0, 1);
  std::fprintf(
      stderr,
      "usage: vpnlab-host-agent --stdio\n  started by vpnlab on a host over ssh; speaks JSON lines on stdin/stdout\n");
  return 2;
}
