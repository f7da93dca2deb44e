#include "lab/backends/vm/guest_net.h"

#include <netlink/route/link.h>

#include <memory>

namespace vpnlab {

Status rename_link_by_mac(nl_sock* sock, const std::string& mac, const std::string& name) {
  nl_cache* raw = nullptr;
  if (int err = rtnl_link_alloc_cache(sock, AF_UNSPEC, &raw); err < 0)
    return make_error(std::string("listing links: ") + nl_geterror(err));
  std::unique_ptr<nl_cache, void (*)(nl_cache*)> cache(raw, nl_cache_free);
  for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
    auto* link = reinterpret_cast<rtnl_link*>(o);
    nl_addr* a = rtnl_link_get_addr(link);
    if (!a) continue;
    char buf[64];
    if (mac != nl_addr2str(a, buf, sizeof buf)) continue;
    if (name == rtnl_link_get_name(link)) return ok_status();
    std::unique_ptr<rtnl_link, void (*)(rtnl_link*)> change(rtnl_link_alloc(), rtnl_link_put);
    rtnl_link_set_name(change.get(), name.c_str());
    if (int err = rtnl_link_change(sock, link, change.get(), 0); err < 0)
      return make_error("link with MAC " + mac + ": cannot rename to '" + name + "': " + nl_geterror(err));
    return ok_status();
  }
  return make_error("no link with MAC " + mac + " in the guest",
                    "the guest kernel lacks virtio_net, or the domain XML lost the NIC");
}

}  // namespace vpnlab
