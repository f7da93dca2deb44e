// vpnlab-agent: PID 1 of a guest (lab/backends/vm/agent_main.cpp). Its own binary, linking only the
// launcher and netlink (base, netns): a guest with the image's own root has no more.
#include "lab/backends/vm/guest_agent.h"

int main() { return vpnlab::serve_guest_agent(); }
