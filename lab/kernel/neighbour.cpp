#include "lab/kernel/neighbour.h"

#include <arpa/inet.h>
#include <linux/neighbour.h>
#include <sys/socket.h>

#include <cstring>
#include <memory>

#include <netlink/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/neighbour.h>

namespace vpnlab {
namespace {

struct NeighDeleter {
  void operator()(rtnl_neigh* n) const { rtnl_neigh_put(n); }
};
struct LinkDeleter {
  void operator()(rtnl_link* l) const { rtnl_link_put(l); }
};

}  // namespace

Result<MacAddr> link_mac(nl_sock* sock, const std::string& ifname) {
  rtnl_link* raw = nullptr;
  int err = rtnl_link_get_kernel(sock, 0, ifname.c_str(), &raw);
  if (err < 0) return make_error("link '" + ifname + "': " + nl_geterror(err));
  std::unique_ptr<rtnl_link, LinkDeleter> link(raw);
  nl_addr* a = rtnl_link_get_addr(link.get());
  if (!a || nl_addr_get_len(a) != 6) return make_error("link '" + ifname + "' has no Ethernet address");
  MacAddr mac{};
  std::memcpy(mac.data(), nl_addr_get_binary_addr(a), 6);
  return mac;
}

Status add_permanent_neighbour(nl_sock* sock, const std::string& ifname, Ipv4Addr addr, const MacAddr& mac) {
  auto index = link_index(sock, ifname);
  if (!index) return index.error();
  std::unique_ptr<rtnl_neigh, NeighDeleter> neigh(rtnl_neigh_alloc());
  if (!neigh) return make_error("neighbour " + addr.str() + ": out of memory");
  uint32_t be = htonl(addr.value);
  NlAddr dst(nl_addr_build(AF_INET, &be, 4));
  NlAddr ll(nl_addr_build(AF_LLC, mac.data(), 6));
  if (!dst || !ll) return make_error("neighbour " + addr.str() + ": out of memory");
  rtnl_neigh_set_ifindex(neigh.get(), *index);
  rtnl_neigh_set_dst(neigh.get(), dst.get());
  rtnl_neigh_set_lladdr(neigh.get(), ll.get());
  rtnl_neigh_set_state(neigh.get(), NUD_PERMANENT);
  int err = rtnl_neigh_add(sock, neigh.get(), NLM_F_CREATE | NLM_F_REPLACE);
  if (err < 0) return make_error("neighbour " + addr.str() + " on " + ifname + ": " + nl_geterror(err));
  return ok_status();
}

}  // namespace vpnlab
