#include "lab/kernel/netlink.h"

#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstring>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/rule.h>
#include <netlink/socket.h>

#include "lab/kernel/namespace.h"

namespace vpnlab {

void NlSockDeleter::operator()(nl_sock* s) const { nl_socket_free(s); }
void RtnlLinkDeleter::operator()(rtnl_link* l) const { rtnl_link_put(l); }
void NlAddrDeleter::operator()(nl_addr* a) const { nl_addr_put(a); }

namespace {

struct RtnlAddrDeleter {
  void operator()(rtnl_addr* a) const { rtnl_addr_put(a); }
};
using RtnlAddr = std::unique_ptr<rtnl_addr, RtnlAddrDeleter>;

Error nl_failure(const std::string& what, int nlerr, const std::string& hint = {}) {
  return make_error(what + ": " + nl_geterror(nlerr), hint);
}

LinkInfo to_info(rtnl_link* l) {
  LinkInfo info;
  info.name = rtnl_link_get_name(l) ? rtnl_link_get_name(l) : "";
  const char* type = rtnl_link_get_type(l);
  info.kind = type ? type : "";
  info.mtu = static_cast<int>(rtnl_link_get_mtu(l));
  info.up = (rtnl_link_get_flags(l) & IFF_UP) != 0;
  info.rx_bytes = rtnl_link_get_stat(l, RTNL_LINK_RX_BYTES);
  info.tx_bytes = rtnl_link_get_stat(l, RTNL_LINK_TX_BYTES);
  info.rx_packets = rtnl_link_get_stat(l, RTNL_LINK_RX_PACKETS);
  info.tx_packets = rtnl_link_get_stat(l, RTNL_LINK_TX_PACKETS);
  return info;
}

Result<RtnlLink> fetch_link(nl_sock* sock, const std::string& ifname) {
  rtnl_link* raw = nullptr;
  int err = rtnl_link_get_kernel(sock, 0, ifname.c_str(), &raw);
  if (err < 0) return nl_failure("link '" + ifname + "'", err);
  return RtnlLink(raw);
}

}  // namespace

Result<NlSock> open_route_socket() {
  NlSock sock(nl_socket_alloc());
  if (!sock) return make_error("netlink: cannot allocate a socket (out of memory)");
  int err = nl_connect(sock.get(), NETLINK_ROUTE);
  if (err < 0) return nl_failure("netlink: cannot connect a route socket", err);
  return sock;
}

Result<int> link_index(nl_sock* sock, const std::string& ifname) {
  auto link = fetch_link(sock, ifname);
  if (!link) return link.error();
  return rtnl_link_get_ifindex(link->get());
}

Status create_bridge(nl_sock* sock, const std::string& name, int mtu) {
  RtnlLink link(rtnl_link_alloc());
  rtnl_link_set_name(link.get(), name.c_str());
  int err = rtnl_link_set_type(link.get(), "bridge");
  if (err < 0)
    return nl_failure("bridge '" + name + "': bridge support", err, "load the bridge module (modprobe bridge)");
  rtnl_link_set_mtu(link.get(), mtu);
  rtnl_link_set_flags(link.get(), IFF_UP);
  err = rtnl_link_add(sock, link.get(), NLM_F_CREATE | NLM_F_EXCL);
  if (err < 0) return nl_failure("bridge '" + name + "': cannot create", err);
  return ok_status();
}

Status create_veth(nl_sock* sock_a, const std::string& if_a, int master_a, int ns_b_fd, const std::string& if_b,
                   int mtu) {
  RtnlLink a(rtnl_link_veth_alloc());
  if (!a) return make_error("veth '" + if_a + "': cannot allocate (out of memory)");
  RtnlLink b(rtnl_link_veth_get_peer(a.get()));
  rtnl_link_set_name(a.get(), if_a.c_str());
  rtnl_link_set_name(b.get(), if_b.c_str());
  rtnl_link_set_ns_fd(b.get(), ns_b_fd);
  if (master_a > 0) rtnl_link_set_master(a.get(), master_a);
  rtnl_link_set_mtu(a.get(), mtu);
  rtnl_link_set_mtu(b.get(), mtu);
  // Only end A can be created up: the kernel opens the peer before the pair is linked,
  // and opening an unlinked veth fails with ENOTCONN. End B goes up in a second request.
  rtnl_link_set_flags(a.get(), IFF_UP);
  int err = rtnl_link_add(sock_a, a.get(), NLM_F_CREATE | NLM_F_EXCL);
  if (err < 0) return nl_failure("veth '" + if_a + "' <-> '" + if_b + "': cannot create", err);
  return ok_status();
}

Status set_master(nl_sock* sock, const std::string& ifname, int master_index) {
  auto idx = link_index(sock, ifname);
  if (!idx) return idx.error();
  RtnlLink change(rtnl_link_alloc());
  rtnl_link_set_ifindex(change.get(), *idx);
  rtnl_link_set_master(change.get(), master_index);
  int err = rtnl_link_change(sock, change.get(), change.get(), 0);
  if (err < 0) return nl_failure("link '" + ifname + "': cannot attach to bridge", err);
  return ok_status();
}

Status add_address(nl_sock* sock, const std::string& ifname, const HostAddr& addr) {
  auto idx = link_index(sock, ifname);
  if (!idx) return idx.error();
  nl_addr* raw = nullptr;
  int err = nl_addr_parse(addr.str().c_str(), AF_INET, &raw);
  if (err < 0) return nl_failure("address " + addr.str(), err);
  NlAddr local(raw);
  RtnlAddr a(rtnl_addr_alloc());
  rtnl_addr_set_ifindex(a.get(), *idx);
  rtnl_addr_set_local(a.get(), local.get());
  err = rtnl_addr_add(sock, a.get(), 0);
  // The very address with its prefix is there already (a product that sets its own, as
  // EasyTier does): what was asked holds.
  if (err == -NLE_EXIST) return ok_status();
  if (err < 0) return nl_failure("link '" + ifname + "': cannot add address " + addr.str(), err);
  return ok_status();
}

Status set_link(nl_sock* sock, const std::string& ifname, int mtu, bool up) {
  // Addressed by name (ifindex 0): one request, no lookup first.
  RtnlLink orig(rtnl_link_alloc());
  rtnl_link_set_name(orig.get(), ifname.c_str());
  RtnlLink change(rtnl_link_alloc());
  rtnl_link_set_name(change.get(), ifname.c_str());
  if (mtu > 0) rtnl_link_set_mtu(change.get(), mtu);
  if (up) rtnl_link_set_flags(change.get(), IFF_UP);
  int err = rtnl_link_change(sock, orig.get(), change.get(), 0);
  if (err < 0)
    return nl_failure("link '" + ifname + "': cannot set MTU " + std::to_string(mtu) + (up ? " and up" : ""), err);
  return ok_status();
}

// Both address the link by its index (a request by name alone would name the new name).
Status set_link_down(nl_sock* sock, const std::string& ifname) {
  auto orig = fetch_link(sock, ifname);
  if (!orig) return orig.error();
  RtnlLink change(rtnl_link_alloc());
  rtnl_link_unset_flags(change.get(), IFF_UP);
  if (int err = rtnl_link_change(sock, orig->get(), change.get(), 0); err < 0)
    return nl_failure("link '" + ifname + "': cannot set down", err);
  return ok_status();
}

Status delete_link(nl_sock* sock, const std::string& ifname) {
  RtnlLink link(rtnl_link_alloc());
  rtnl_link_set_name(link.get(), ifname.c_str());
  int err = rtnl_link_delete(sock, link.get());
  if (err < 0 && err != -NLE_NODEV && err != -NLE_OBJ_NOTFOUND)
    return nl_failure("link '" + ifname + "': cannot delete", err);
  return ok_status();
}

Status move_link(nl_sock* sock, const std::string& ifname, int ns_fd, const std::string& new_name) {
  if (auto s = set_link_down(sock, ifname); !s) return s;
  auto orig = fetch_link(sock, ifname);
  if (!orig) return orig.error();
  RtnlLink change(rtnl_link_alloc());
  rtnl_link_set_ns_fd(change.get(), ns_fd);
  rtnl_link_set_name(change.get(), new_name.c_str());
  if (int err = rtnl_link_change(sock, orig->get(), change.get(), 0); err < 0)
    return nl_failure("link '" + ifname + "': cannot move it to another namespace as '" + new_name + "'", err);
  return ok_status();
}

Result<std::vector<std::string>> link_used_addresses(nl_sock* sock, const std::string& ifname) {
  auto index = link_index(sock, ifname);
  if (!index) return index.error();
  nl_cache* cache = nullptr;
  if (int err = rtnl_addr_alloc_cache(sock, &cache); err < 0) return nl_failure("cannot list addresses", err);
  std::vector<std::string> out;
  for (nl_object* o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    if (rtnl_addr_get_ifindex(a) != *index) continue;
    const int family = rtnl_addr_get_family(a);
    if (family != AF_INET &&
        !(family == AF_INET6 && rtnl_addr_get_scope(a) != RT_SCOPE_LINK && rtnl_addr_get_scope(a) != RT_SCOPE_HOST))
      continue;
    char buf[64];
    out.push_back(nl_addr2str(rtnl_addr_get_local(a), buf, sizeof buf));
  }
  nl_cache_free(cache);
  return out;
}

Result<LinkInfo> get_link(nl_sock* sock, const std::string& ifname) {
  auto link = fetch_link(sock, ifname);
  if (!link) return link.error();
  return to_info(link->get());
}

Result<std::vector<LinkInfo>> list_links(nl_sock* sock) {
  nl_cache* cache = nullptr;
  int err = rtnl_link_alloc_cache(sock, AF_UNSPEC, &cache);
  if (err < 0) return nl_failure("cannot list links", err);
  std::vector<LinkInfo> out;
  for (nl_object* o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o))
    out.push_back(to_info(reinterpret_cast<rtnl_link*>(o)));
  nl_cache_free(cache);
  return out;
}

Result<std::vector<std::string>> extra_ipv4_rules(nl_sock* sock) {
  nl_cache* cache = nullptr;
  int err = rtnl_rule_alloc_cache(sock, AF_INET, &cache);
  if (err < 0) return nl_failure("cannot list rules", err);
  std::vector<std::string> out;
  for (nl_object* o = nl_cache_get_first(cache); o; o = nl_cache_get_next(o)) {
    auto* rule = reinterpret_cast<rtnl_rule*>(o);
    uint32_t prio = rtnl_rule_get_prio(rule);
    if (prio == 0 || prio == 32766 || prio == 32767) continue;
    out.push_back("priority " + std::to_string(prio) + " table " + std::to_string(rtnl_rule_get_table(rule)));
  }
  nl_cache_free(cache);
  return out;
}

Status wait_for_link(int netns_fd, nl_sock* sock, const std::string& ifname, double timeout_s, int interrupt_fd) {
  // Subscribe first, then check: a link that appears in between is still seen.
  Result<NlSock> events = make_error("unset");
  if (auto s = run_in_netns(netns_fd, [&] { events = open_route_socket(); }); !s) return s;
  if (!events) return events.error();
  nl_socket_add_membership(events->get(), RTNLGRP_LINK);
  int fd = nl_socket_get_fd(events->get());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (get_link(sock, ifname)) return ok_status();
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    pollfd fds[2] = {{fd, POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
    int n = poll(fds, interrupt_fd >= 0 ? 2 : 1, static_cast<int>(left));
    if (n < 0 && errno != EINTR) return make_error("waiting for link '" + ifname + "': poll: " + errno_text(errno));
    if (interrupt_fd >= 0 && (fds[1].revents & POLLIN))
      return make_error("interrupted while waiting for link '" + ifname + "'");
    char buf[16384];
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {
    }
  }
  return make_error("link '" + ifname + "' did not appear within " + std::to_string(static_cast<int>(timeout_s)) + " s",
                    "the product's daemon should create it; see its log");
}

}  // namespace vpnlab
