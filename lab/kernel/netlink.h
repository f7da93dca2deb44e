// Netlink (libnl-route-3) operations on one network namespace: links, addresses, counters.
// Every function names the object it touched and the kernel's errno text on failure.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lab/base/ipv4.h"
#include "lab/base/result.h"
#include "lab/runtime/measurements.h"

struct nl_addr;
struct nl_sock;
struct rtnl_link;

namespace vpnlab {

struct NlSockDeleter {
  void operator()(nl_sock* s) const;
};
struct RtnlLinkDeleter {
  void operator()(rtnl_link* l) const;
};
using NlSock = std::unique_ptr<nl_sock, NlSockDeleter>;
using RtnlLink = std::unique_ptr<rtnl_link, RtnlLinkDeleter>;
struct NlAddrDeleter {
  void operator()(nl_addr* a) const;
};
using NlAddr = std::unique_ptr<nl_addr, NlAddrDeleter>;

// A route netlink socket in the calling thread's network namespace (sockets keep the
// namespace they were created in, whichever thread uses them later).
Result<NlSock> open_route_socket();

// Everything below talks to the namespace `sock` was opened in.
Result<int> link_index(nl_sock* sock, const std::string& ifname);
Status create_bridge(nl_sock* sock, const std::string& name, int mtu);
// Creates a veth pair in one request: end `if_a` in this socket's namespace, optionally
// enslaved to bridge `master_a` (an ifindex there; 0 = none), and `if_b` directly inside
// the namespace `ns_b_fd` (never passing through the host), both with `mtu`. Only end A
// is up afterwards; bring end B up with set_link() on its namespace's socket.
Status create_veth(nl_sock* sock_a, const std::string& if_a, int master_a, int ns_b_fd, const std::string& if_b,
                   int mtu);
Status set_master(nl_sock* sock, const std::string& ifname, int master_index);
Status add_address(nl_sock* sock, const std::string& ifname, const HostAddr& addr);
Status set_link(nl_sock* sock, const std::string& ifname, int mtu, bool up);

// Takes `ifname` down, then moves it into the namespace of `ns_fd` named `new_name` (one
// request: a link changes its name only while down). What a host's NIC goes through when a
// node takes it, and back at teardown.
Status move_link(nl_sock* sock, const std::string& ifname, int ns_fd, const std::string& new_name);
Status set_link_down(nl_sock* sock, const std::string& ifname);
// Removes a link; one that is not there (any more) is success.
Status delete_link(nl_sock* sock, const std::string& ifname);
// The link's addresses that something may use: every IPv4 one and the IPv6 ones of global
// or site scope ("192.0.2.1/24", "2001:db8::1/64"); a link-local fe80:: is the kernel's own.
// A NIC the lab would take must have none: moved into a namespace, they are gone.
Result<std::vector<std::string>> link_used_addresses(nl_sock* sock, const std::string& ifname);

Result<LinkInfo> get_link(nl_sock* sock, const std::string& ifname);
// All links of the namespace (one dump; used by audits, not on hot paths).
Result<std::vector<LinkInfo>> list_links(nl_sock* sock);

// IPv4 policy rules beyond the kernel's three defaults (priorities 0, 32766, 32767), as
// "priority N table T": what a product that died uncleanly may leave (strongSwan: 220).
Result<std::vector<std::string>> extra_ipv4_rules(nl_sock* sock);

// Waits for `ifname` to exist in the namespace of `netns_fd`, driven by RTM_NEWLINK events.
Status wait_for_link(int netns_fd, nl_sock* sock, const std::string& ifname, double timeout_s, int interrupt_fd);

}  // namespace vpnlab
