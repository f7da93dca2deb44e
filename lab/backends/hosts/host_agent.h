// The host side of the hosts backend: `vpnlab-host-agent --stdio` (lab/backends/hosts/host_agent.cpp).
#pragma once

namespace vpnlab {

// Serves JSON lines on in_fd/out_fd until in_fd closes, then tears down what it built.
// Returns the process's exit code.
int serve_host_agent(int in_fd, int out_fd);

}  // namespace vpnlab
