// The guest side of vpnlab-agent (lab/backends/vm/agent_main.cpp): PID 1 of a guest, serving the
// virtio-serial port "vpnlab.agent".
#pragma once

namespace vpnlab {

int serve_guest_agent();

}  // namespace vpnlab
