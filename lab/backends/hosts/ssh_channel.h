// The controller's way to a host: one ssh connection per host running `vpnlab-host-agent
// --stdio` there, its stdin and stdout a socket to this process. One connection carries the
// whole round (no handshake per operation). When this process dies, however it dies, the
// socket closes, ssh sees EOF on stdin and passes it on: the agent's dead-man teardown.
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "lab/base/process.h"
#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

struct SshTarget {
  std::string host;                  // the [[host]] name, for messages
  std::string destination;           // ssh's destination
  std::vector<std::string> options;  // the topology's ssh_options
  std::string agent;                 // vpnlab-host-agent's path on the host
  std::string host_key;              // "TYPE KEY" pinned, "accept-new", or "" (PlanHost)
  std::string known_hosts;           // a known-hosts file to read, or "" (PlanHost)
};

// How ssh checks the host's key, all of it vpnlab's choice: the file ssh reads (and, with
// accept-new, appends to), the checking mode, and the alias a pinned key is filed under.
struct SshTrust {
  std::string known_hosts_file;
  std::string strict;  // "yes" or "accept-new"
  std::string alias;   // HostKeyAlias for a pinned key, else ""
};

// vpnlab's private directory for ssh in this process: control sockets and the known-hosts
// files it writes for pinned keys and named files. Made with mkdtemp (a name nobody can
// foresee) in a directory only its user may write (ssh_private_dir_prefix), checked to be
// a directory of this user with mode 0700 at every use, removed at exit.
Result<std::string> ssh_private_dir();
// Where those directories are made, each PREFIX<pid>-XXXXXX: "/run/vpnlab-ssh-" as root;
// for another user its $XDG_RUNTIME_DIR when that is a 0700 directory of its own (no other
// user can enter it, let alone listen there first), else "": there is no such place, and
// ssh_private_dir() refuses with the fix (never /tmp, where another user could be first).
std::string ssh_private_dir_prefix();
// The same for user `euid` with `xdg_runtime_dir` (null: unset), for tests.
std::string ssh_private_dir_prefix_for(uid_t euid, const char* xdg_runtime_dir);
// vpnlab's own known-hosts file, where host_key = "accept-new" records a host's first key:
// $VPNLAB_KNOWN_HOSTS, else /var/lib/vpnlab/known_hosts; made 0600 when missing, refused
// when it is a link, not a regular file, not this user's, or writable by others.
Result<std::string> own_known_hosts_file();
// The trust for `t`: a pinned key written into the private directory under an alias; a
// named known_hosts file read (bounded, a regular file) and copied there; otherwise vpnlab's
// own file, strict unless accept-new. Each -i/IdentityFile must be a regular file.
Result<SshTrust> prepare_ssh_trust(const SshTarget& t, const std::string& private_dir);

// ssh's argv. -F none: no ssh_config is read (one may run commands or name files).
// BatchMode: a missing key is an error, never a password prompt on a run's terminal. vpnlab's
// own options come first, so that a topology's cannot override them (ssh keeps the first
// value of each). Keepalives end a connection to a vanished host within ~15 s; a master
// connection (ControlMaster, per vpnlab process, its socket in the private directory) is
// reused by every later session to the host. The remote command is one word, quoted for the
// remote shell (ssh always hands its command to a shell).
std::vector<std::string> ssh_argv(const SshTarget& t, const SshTrust& trust, const std::string& private_dir);
// 'text' for a POSIX shell ("'" inside becomes '\'').
std::string shell_quote(const std::string& text);

struct SshChannel {
  std::unique_ptr<Child> ssh;
  UniqueFd fd;           // JSON lines to and from the agent
  std::string log_path;  // ssh's stderr (why a connection failed)
};

Result<SshChannel> open_ssh_channel(const SshTarget& t, const std::string& log_path);

}  // namespace vpnlab
