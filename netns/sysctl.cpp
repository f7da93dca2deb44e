#include "netns/sysctl.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace vpnlab {

namespace {

std::string read_value(const std::string& path) {
  char buf[512];
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return {};
  std::string v(buf, n);
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  for (char& c : v)
    if (c == '\t') c = ' ';
  return v;
}

}  // namespace

Result<std::map<std::string, std::string>> apply_sysctls(const SysctlList& settings) {
  std::map<std::string, std::string> recorded;
  for (const auto& [raw_key, value] : settings) {
    bool optional = !raw_key.empty() && raw_key[0] == '?';
    bool preferred = !raw_key.empty() && raw_key[0] == '~';
    std::string key = optional || preferred ? raw_key.substr(1) : raw_key;
    std::string path = "/proc/sys/" + key;
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      if (optional && errno == ENOENT) {
        recorded[key] = "absent";
        continue;
      }
      return make_error("sysctl " + key + ": cannot open: " + errno_text(errno), "run vpnlab as root");
    }
    ssize_t n = write(fd, value.data(), value.size());
    int err = errno;
    close(fd);
    if (n < 0 && preferred && err == EPERM) {
      recorded[key] = read_value(path) + " (wanted " + value + ": not in net.ipv4.tcp_allowed_congestion_control)";
      continue;
    }
    if (n != static_cast<ssize_t>(value.size()))
      return make_error("sysctl " + key + " = '" + value + "': " + errno_text(err));
    recorded[key] = read_value(path);
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
      {"net/ipv6/conf/all/disable_ipv6", "1"},
      {"net/ipv6/conf/default/disable_ipv6", "1"},
      {"?net/bridge/bridge-nf-call-iptables", "0"},
      {"?net/bridge/bridge-nf-call-ip6tables", "0"},
      {"?net/bridge/bridge-nf-call-arptables", "0"},
  };
  return s;
}

}  // namespace vpnlab
