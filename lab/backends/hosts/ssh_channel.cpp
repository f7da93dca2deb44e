#include "lab/backends/hosts/ssh_channel.h"

#include <sys/socket.h>
#include <unistd.h>

namespace vpnlab {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string control_path() {
  // Per vpnlab process: a master of another run (of another emulated host at the same
  // address, in the tests) is never reused. %C: a hash of host, port and user.
  return "/tmp/vpnlab-ssh-" + std::to_string(::getpid()) + "-%C";
}

std::vector<std::string> ssh_argv(const SshTarget& t) {
  std::vector<std::string> argv = {"ssh", "-T", "-o", "BatchMode=yes"};
  // The topology's options first: for each option ssh keeps the first value it is given.
  argv.insert(argv.end(), t.options.begin(), t.options.end());
  argv.insert(argv.end(), {"-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "-o", "ConnectTimeout=10",
                           // One connection per host for the whole run: the first session starts a
                           // master, later ones (every round's agent) reuse it; it ends 15 s after
                           // its last session, so a killed vpnlab leaves none behind for long.
                           "-o", "ControlMaster=auto", "-o", "ControlPath=" + control_path(), "-o", "ControlPersist=15s"});
  // "--" ends ssh's options: a destination can never be read as one.
  argv.insert(argv.end(), {"--", t.destination, "exec " + shell_quote(t.agent) + " --stdio"});
  return argv;
}

Result<SshChannel> open_ssh_channel(const SshTarget& t, const std::string& log_path) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) return make_error("socketpair: " + errno_text(errno));
  UniqueFd mine(sv[0]), theirs(sv[1]);
  SpawnSpec spec;
  spec.argv = ssh_argv(t);
  spec.stdout_path = log_path;  // replaced by the socket; stderr stays in the log
  spec.stderr_path = log_path;
  spec.stdio_fd = theirs.get();
  auto child = Child::spawn(spec);
  if (!child) return with_context(child.error(), "host '" + t.host + "'");
  return SshChannel{std::move(*child), std::move(mine), log_path};
}

}  // namespace vpnlab
