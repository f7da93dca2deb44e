#include "lab/kernel/offloads.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cstring>

#include "lab/base/unique_fd.h"
#include "lab/kernel/namespace.h"

namespace vpnlab {

Result<std::map<std::string, bool>> read_offloads(int netns_fd, const std::string& ifname) {
  UniqueFd sock;
  if (auto s = run_in_netns(netns_fd, [&] { sock.reset(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)); }); !s)
    return s.error();
  if (!sock.valid()) return make_error("offloads of '" + ifname + "': socket: " + errno_text(errno));
  const std::pair<const char*, uint32_t> queries[] = {{"tso", ETHTOOL_GTSO},
                                                      {"gso", ETHTOOL_GGSO},
                                                      {"gro", ETHTOOL_GGRO},
                                                      {"sg", ETHTOOL_GSG},
                                                      {"tx-checksum", ETHTOOL_GTXCSUM},
                                                      {"rx-checksum", ETHTOOL_GRXCSUM}};
  std::map<std::string, bool> out;
  for (const auto& [name, cmd] : queries) {
    ethtool_value value{};
    value.cmd = cmd;
    ifreq ifr{};
    strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    ifr.ifr_data = reinterpret_cast<char*>(&value);
    if (ioctl(sock.get(), SIOCETHTOOL, &ifr) < 0) {
      if (errno == EOPNOTSUPP) continue;  // the driver does not say: recorded as absent
      return make_error("offloads of '" + ifname + "': " + name + ": " + errno_text(errno));
    }
    out[name] = value.data != 0;
  }
  return out;
}

Status set_segmentation_offloads(int netns_fd, const std::string& ifname, bool on) {
  UniqueFd sock;
  if (auto s = run_in_netns(netns_fd, [&] { sock.reset(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)); }); !s) return s;
  if (!sock.valid()) return make_error("offloads of '" + ifname + "': socket: " + errno_text(errno));
  const std::pair<const char*, uint32_t> settings[] = {
      {"tso", ETHTOOL_STSO}, {"gso", ETHTOOL_SGSO}, {"gro", ETHTOOL_SGRO}};
  for (const auto& [name, cmd] : settings) {
    ethtool_value value{};
    value.cmd = cmd;
    value.data = on ? 1 : 0;
    ifreq ifr{};
    strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    ifr.ifr_data = reinterpret_cast<char*>(&value);
    if (ioctl(sock.get(), SIOCETHTOOL, &ifr) < 0)
      return make_error("interface '" + ifname + "': cannot turn " + name + (on ? " on: " : " off: ") +
                        errno_text(errno));
  }
  return ok_status();
}

}  // namespace vpnlab
