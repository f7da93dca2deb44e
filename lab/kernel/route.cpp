#include "lab/kernel/route.h"

#include <sys/socket.h>

#include <memory>

#include <netlink/netlink.h>
#include <netlink/route/route.h>

#include "lab/kernel/netlink.h"

namespace vpnlab {

namespace {
struct RouteFree {
  void operator()(rtnl_route* r) const { rtnl_route_put(r); }
};
}  // namespace

Status replace_route(nl_sock* sock, const Ipv4Prefix& dest, Ipv4Addr via) {
  std::string what = "route " + (dest.length == 0 ? std::string("default") : dest.str()) + " via " + via.str();
  nl_addr* raw = nullptr;
  if (int err = nl_addr_parse(dest.str().c_str(), AF_INET, &raw); err < 0)
    return make_error(what + ": " + nl_geterror(err));
  NlAddr dst(raw);
  if (int err = nl_addr_parse(via.str().c_str(), AF_INET, &raw); err < 0)
    return make_error(what + ": " + nl_geterror(err));
  NlAddr gw(raw);
  std::unique_ptr<rtnl_route, RouteFree> route(rtnl_route_alloc());
  rtnl_route_set_family(route.get(), AF_INET);
  rtnl_route_set_dst(route.get(), dst.get());
  rtnl_route_set_table(route.get(), RT_TABLE_MAIN);
  rtnl_route_set_protocol(route.get(), RTPROT_STATIC);
  rtnl_route_set_scope(route.get(), RT_SCOPE_UNIVERSE);
  rtnl_route_set_type(route.get(), RTN_UNICAST);
  rtnl_nexthop* nh = rtnl_route_nh_alloc();
  rtnl_route_nh_set_gateway(nh, gw.get());
  rtnl_route_add_nexthop(route.get(), nh);  // the route owns it now
  int err = rtnl_route_add(sock, route.get(), NLM_F_CREATE | NLM_F_REPLACE);
  if (err < 0)
    return make_error(what + ": " + nl_geterror(err), "the gateway must be on a connected subnet of this node");
  return ok_status();
}

}  // namespace vpnlab
