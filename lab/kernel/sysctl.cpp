#include "lab/kernel/sysctl.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "lab/base/beneath.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

namespace {

std::string value_text(const char* buf, ssize_t n) {
  if (n <= 0) return {};
  std::string v(buf, static_cast<size_t>(n));
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  for (char& c : v)
    if (c == '\t') c = ' ';
  return v;
}

// What the file holds now, read through the descriptor the value was written with.
std::string read_back(int fd) {
  char buf[512];
  return value_text(buf, pread(fd, buf, sizeof buf - 1, 0));
}

}  // namespace

Result<std::map<std::string, std::string>> apply_sysctls(const SysctlList& settings) {
  // The kernel keeps the /proc/sys dentries of equal names from every namespace on one hash
  // chain, so each path component looked up costs more the more namespaces exist (perf on
  // the 1000-node star: proc_sys_compare on top). Each directory is looked up once per
  // namespace (then openat() below it) and a value read back through the descriptor that
  // wrote it.
  // Every key is opened beneath /proc/sys, never through a link, a ".." or a "/": the reader
  // normalises keys and refuses others, and this holds even if a key got past it.
  UniqueFd proc_sys(open("/proc/sys", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!proc_sys.valid()) return make_error("cannot open /proc/sys: " + errno_text(errno));
  std::map<std::string, UniqueFd> dirs;
  auto open_in_dir = [&dirs, &proc_sys](const std::string& key) {
    auto slash = key.rfind('/');
    if (slash == std::string::npos) return open_beneath(proc_sys.get(), key, O_RDWR);
    std::string dir = key.substr(0, slash);
    auto it = dirs.find(dir);
    if (it == dirs.end()) it = dirs.emplace(dir, open_beneath(proc_sys.get(), dir, O_PATH | O_DIRECTORY)).first;
    if (!it->second.valid()) return open_beneath(proc_sys.get(), key, O_RDWR);  // sets errno
    return open_beneath(it->second.get(), key.substr(slash + 1), O_RDWR);
  };
  std::map<std::string, std::string> recorded;
  for (const auto& [raw_key, value] : settings) {
    bool optional = !raw_key.empty() && raw_key[0] == '?';
    bool preferred = !raw_key.empty() && raw_key[0] == '~';
    std::string key = optional || preferred ? raw_key.substr(1) : raw_key;
    UniqueFd fd = open_in_dir(key);
    if (!fd.valid()) {
      if (optional && errno == ENOENT) {
        recorded[key] = "absent";
        continue;
      }
      const int err = errno;
      return make_error(
          "sysctl " + key + ": cannot open: " + errno_text(err),
          err == ENOENT
              ? "this kernel has no such key in a network namespace (a module not loaded, or a key of another version)"
              : "run vpnlab as root");
    }
    ssize_t n = write(fd.get(), value.data(), value.size());
    int err = errno;
    if (n < 0 && preferred && err == EPERM) {
      recorded[key] = read_back(fd.get()) + " (wanted " + value + ": not in net.ipv4.tcp_allowed_congestion_control)";
      continue;
    }
    if (n != static_cast<ssize_t>(value.size()))
      return make_error("sysctl " + key + " = '" + value + "': " + errno_text(err));
    recorded[key] = read_back(fd.get());
  }
  return recorded;
}

SysctlList node_sysctls() {
  return {
      // A child namespace may only pick an algorithm the host allows; otherwise it keeps the
      // host's default, and the recorded value says so (the host is never changed).
      {"~net/ipv4/tcp_congestion_control", "cubic"},
      {"net/ipv4/tcp_rmem", "4096 131072 6291456"},
      {"net/ipv4/tcp_wmem", "4096 16384 4194304"},
      // Cached per-destination metrics would carry one sample's ssthresh into the next.
      {"net/ipv4/tcp_no_metrics_save", "1"},
      // No IPv6 chatter (router solicitations, DAD) in the counters the tunnel proof reads.
      {"net/ipv6/conf/all/disable_ipv6", "1"},
      {"net/ipv6/conf/default/disable_ipv6", "1"},
  };
}

SysctlList bridge_sysctls() {
  SysctlList s = {
      {"net/ipv6/conf/all/disable_ipv6", "1"},       {"net/ipv6/conf/default/disable_ipv6", "1"},
      {"?net/bridge/bridge-nf-call-iptables", "0"},  {"?net/bridge/bridge-nf-call-ip6tables", "0"},
      {"?net/bridge/bridge-nf-call-arptables", "0"},
  };
  return s;
}

}  // namespace vpnlab
