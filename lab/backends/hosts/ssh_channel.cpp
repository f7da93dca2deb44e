#include "lab/backends/hosts/ssh_channel.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/base/trusted_dir.h"
#include "lab/model/ssh_policy.h"

namespace vpnlab {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

namespace fs = std::filesystem;

// The directory exists, is this user's, and nobody else may enter or write it.
Status check_private(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return make_error(dir + ": " + errno_text(errno));
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 0077) != 0)
    return make_error(
        dir + " is not a private directory of this user (mode 0700): vpnlab keeps ssh's sockets and host keys there",
        "remove it; vpnlab makes a new one");
  return ok_status();
}

struct PrivateDir {
  std::string path;
  Status made = make_error("not made");
  // In /run, which only root may write, so not even the directory's name is another user's
  // to take first; for another user its own private runtime directory, and nowhere else: in
  // a directory every user may write (/tmp), another could take the name first.
  PrivateDir() {
    const std::string prefix = ssh_private_dir_prefix();
    if (prefix.empty()) {
      made = make_error(
          "no private directory for ssh's control sockets and host keys: not root, and $XDG_RUNTIME_DIR is not a "
          "directory "
          "of this user with mode 0700",
          "run vpnlab as root (it keeps them in /run), or set XDG_RUNTIME_DIR to a directory only you may enter");
      return;
    }
    // The pid lets `vpnlab cleanup` remove the directory of a vpnlab that was killed before
    // its destructor ran; the random part is still mkdtemp's.
    std::string name = prefix + std::to_string(::getpid()) + "-XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) {
      made = make_error("cannot make " + name + ": " + errno_text(errno));
      return;
    }
    path = name;
    made = check_private(path);
  }
  ~PrivateDir() {
    if (!path.empty()) (void)remove_tree(path);
  }
};

// A file only this user may write, not through a link: what ssh appends host keys to.
Status check_own_file(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return make_error(path + ": " + errno_text(errno));
  if (S_ISLNK(st.st_mode))
    return make_error(path + " is a symbolic link: vpnlab's known-hosts file must be a file of its own",
                      "remove the link");
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 0022) != 0)
    return make_error(
        path + " is not a regular file of this user that only it may write: vpnlab would trust the host keys in it",
        "chown root " + path + " && chmod 600 " + path + ", or remove it");
  return ok_status();
}

// Every -i FILE, -iFILE and IdentityFile=FILE the topology gives: a regular file (ssh reads a
// FIFO or a device forever).
Status check_identity_files(const SshTarget& t) {
  for (const auto& at : identity_file_places(t.options)) {
    const std::string path = t.options[at.item].substr(at.offset);
    if (path.empty() || path[0] == '~' || path.find('%') != std::string::npos) continue;  // ssh expands these itself
    struct stat st {};
    const bool there = ::stat(path.c_str(), &st) == 0;
    if (!there || !S_ISREG(st.st_mode))
      return make_error("host '" + t.host + "': identity file " + path +
                            (there ? " is not a regular file" : ": " + errno_text(errno)),
                        "name the private key ssh logs in with (relative paths are to the topology's folder)");
  }
  return ok_status();
}

}  // namespace

std::string ssh_private_dir_prefix_for(uid_t euid, const char* xdg_runtime_dir) {
  if (euid == 0) return "/run/vpnlab-ssh-";
  struct stat st {};
  if (xdg_runtime_dir && xdg_runtime_dir[0] == '/' && ::lstat(xdg_runtime_dir, &st) == 0 && S_ISDIR(st.st_mode) &&
      st.st_uid == euid && (st.st_mode & 0077) == 0)
    return std::string(xdg_runtime_dir) + (std::string(xdg_runtime_dir).back() == '/' ? "" : "/") + "vpnlab-ssh-";
  return "";
}

std::string ssh_private_dir_prefix() { return ssh_private_dir_prefix_for(::geteuid(), std::getenv("XDG_RUNTIME_DIR")); }

Result<std::string> ssh_private_dir() {
  static PrivateDir dir;
  if (!dir.made) return dir.made.error();
  if (auto s = check_private(dir.path); !s) return s.error();  // checked again at each use
  return dir.path;
}

Result<std::string> own_known_hosts_file() {
  const char* env = std::getenv("VPNLAB_KNOWN_HOSTS");
  const std::string path = env && *env ? env : "/var/lib/vpnlab/known_hosts";
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  // O_EXCL|O_NOFOLLOW: a file made now is ours; an existing one is checked.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0)
    ::close(fd);
  else if (errno != EEXIST)
    return make_error("cannot make " + path + ": " + errno_text(errno), "run as root, or set VPNLAB_KNOWN_HOSTS");
  if (auto s = check_own_file(path); !s) return s.error();
  return path;
}

Result<SshTrust> prepare_ssh_trust(const SshTarget& t, const std::string& private_dir) {
  if (auto s = check_identity_files(t); !s) return s.error();
  if (auto s = check_private(private_dir); !s) return s.error();
  SshTrust trust{"", "yes", ""};
  if (!t.host_key.empty() && t.host_key != "accept-new") {
    trust.alias = "vpnlab-host-" + t.host;
    trust.known_hosts_file = private_dir + "/known_hosts-" + t.host;
    if (auto s = write_file(trust.known_hosts_file, trust.alias + " " + t.host_key + "\n", 0600); !s) return s.error();
    return trust;
  }
  if (!t.known_hosts.empty()) {
    auto text = read_input_file(t.known_hosts, 4 << 20);
    if (!text) return with_context(text.error(), "host '" + t.host + "': known_hosts");
    trust.known_hosts_file = private_dir + "/known_hosts-" + t.host;
    if (auto s = write_file(trust.known_hosts_file, *text, 0600); !s) return s.error();
    return trust;
  }
  auto own = own_known_hosts_file();
  if (!own) return own.error();
  trust.known_hosts_file = *own;
  if (t.host_key == "accept-new") trust.strict = "accept-new";
  return trust;
}

std::vector<std::string> ssh_argv(const SshTarget& t, const SshTrust& trust, const std::string& private_dir) {
  std::vector<std::string> argv = {
      "ssh", "-F", "none", "-T", "-o", "BatchMode=yes",
      // Host keys: vpnlab's file only (no ~/.ssh/known_hosts, no system file).
      "-o", "UserKnownHostsFile=" + trust.known_hosts_file, "-o", "GlobalKnownHostsFile=/dev/null", "-o",
      "StrictHostKeyChecking=" + trust.strict, "-o", "CheckHostIP=no", "-o", "UpdateHostKeys=no",
      // One connection per host for the whole run: the first session starts a
      // master, later ones (every round's agent) reuse it; it ends 15 s after
      // its last session, so a killed vpnlab leaves none behind for long.
      "-o", "ControlMaster=auto", "-o", "ControlPath=" + private_dir + "/%C", "-o", "ControlPersist=15s"};
  if (!trust.alias.empty()) argv.insert(argv.end(), {"-o", "HostKeyAlias=" + trust.alias});
  // The topology's options, then defaults it may change.
  argv.insert(argv.end(), t.options.begin(), t.options.end());
  argv.insert(argv.end(), {"-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "-o", "ConnectTimeout=10"});
  // "--" ends ssh's options: a destination can never be read as one.
  argv.insert(argv.end(), {"--", t.destination, "exec " + shell_quote(t.agent) + " --stdio"});
  return argv;
}

Result<SshChannel> open_ssh_channel(const SshTarget& t, const std::string& log_path) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    return make_error("socketpair: " + errno_text(errno));
  UniqueFd mine(sv[0]), theirs(sv[1]);
  auto dir = ssh_private_dir();
  if (!dir) return with_context(dir.error(), "host '" + t.host + "'");
  auto trust = prepare_ssh_trust(t, *dir);
  if (!trust) return with_context(trust.error(), "host '" + t.host + "'");
  SpawnSpec spec;
  spec.argv = ssh_argv(t, *trust, *dir);
  spec.stdout_path = log_path;  // replaced by the socket; stderr stays in the log
  spec.stderr_path = log_path;
  spec.stdio_fd = theirs.get();
  auto child = Child::spawn(spec);
  if (!child) return with_context(child.error(), "host '" + t.host + "'");
  return SshChannel{std::move(*child), std::move(mine), log_path};
}

}  // namespace vpnlab
