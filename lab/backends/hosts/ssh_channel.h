// The controller's way to a host: one ssh connection per host running `vpnlab-host-agent
// --stdio` there, its stdin and stdout a socket to this process. One connection carries the
// whole round (no handshake per operation). When this process dies, however it dies, the
// socket closes, ssh sees EOF on stdin and passes it on: the agent's dead-man teardown.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lab/base/process.h"
#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

struct SshTarget {
  std::string host;                      // the [[host]] name, for messages
  std::string destination;               // ssh's destination
  std::vector<std::string> options;      // the topology's ssh_options
  std::string agent;                     // vpnlab-host-agent's path on the host
};

// ssh's argv. BatchMode: a missing key is an error, never a password prompt on a run's
// terminal. Host-key checking stays as the user's configuration says. Keepalives end a
// connection to a vanished host within ~15 s; a master connection (ControlMaster, per
// vpnlab process) is reused by every later session to the host. The remote command is one
// word, quoted for the remote shell (ssh always hands its command to a shell).
std::vector<std::string> ssh_argv(const SshTarget& t);
// 'text' for a POSIX shell ("'" inside becomes '\'').
std::string shell_quote(const std::string& text);

struct SshChannel {
  std::unique_ptr<Child> ssh;
  UniqueFd fd;              // JSON lines to and from the agent
  std::string log_path;     // ssh's stderr (why a connection failed)
};

Result<SshChannel> open_ssh_channel(const SshTarget& t, const std::string& log_path);

}  // namespace vpnlab
