#include "lab/kernel/capabilities.h"
#include "lab/kernel/shaping.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/kvm.h>
#include <linux/netlink.h>
#include <linux/xfrm.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vxlan.h>
#include <netlink/route/link/xfrmi.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>

#include "lab/kernel/namespace.h"
#include "lab/kernel/netlink.h"
#include "lab/kernel/sysctl.h"

namespace vpnlab {

namespace {

// A VXLAN to one remote (a two-node overlay carried over another product's IPv6, as
// yggdrasil's spec does): its id, the remote as the kernel's "group" (unicast: iproute2's
// `remote`), and the destination port.
Status set_vxlan(rtnl_link* link, const std::string& name, const LinkOptions& o) {
  if (o.vni == 0 || o.remote.empty())
    return make_error("link '" + name + "' of kind vxlan needs an id and a remote",
                      "add vni = N and remote = \"{{peer_...}}\" to the create_link step");
  nl_addr* raw = nullptr;
  int err = nl_addr_parse(o.remote.c_str(), AF_UNSPEC, &raw);
  if (err < 0) return make_error("link '" + name + "': remote '" + o.remote + "': " + nl_geterror(err));
  NlAddr remote(raw);
  if ((err = rtnl_link_vxlan_set_id(link, o.vni)) < 0 || (err = rtnl_link_vxlan_set_group(link, remote.get())) < 0 ||
      (o.dstport > 0 && (err = rtnl_link_vxlan_set_port(link, static_cast<uint32_t>(o.dstport))) < 0))
    return make_error("link '" + name + "' of kind vxlan: " + nl_geterror(err));
  return ok_status();
}

}  // namespace

Status create_link_of_kind(nl_sock* sock, const std::string& name, const std::string& kind,
                           const LinkOptions& options) {
  RtnlLink link(rtnl_link_alloc());
  rtnl_link_set_name(link.get(), name.c_str());
  int err = rtnl_link_set_type(link.get(), kind.c_str());
  // libnl knows only some kinds; for the others the kind string alone is sent.
  if (err < 0 && err != -NLE_OPNOTSUPP)
    return make_error("link '" + name + "' of kind " + kind + ": " + nl_geterror(err));
  // An XFRM interface carries the traffic of the IPsec policies with its if_id (route-based
  // IPsec); the kernel refuses if_id 0.
  if (kind == "xfrm") {
    if (options.if_id == 0)
      return make_error("link '" + name + "' of kind xfrm needs an if_id",
                        "add if_id = N (N > 0) to the create_link step");
    if ((err = rtnl_link_xfrmi_set_if_id(link.get(), options.if_id)) < 0)
      return make_error("link '" + name + "': if_id: " + nl_geterror(err));
  }
  if (kind == "vxlan")
    if (auto s = set_vxlan(link.get(), name, options); !s) return s;
  err = rtnl_link_add(sock, link.get(), NLM_F_CREATE | NLM_F_EXCL);
  if (err < 0) return make_error("link '" + name + "' of kind " + kind + ": " + nl_geterror(err));
  return ok_status();
}

namespace {

Capability from_status(const std::string& name, const Status& s, const std::string& yes) {
  return Capability{name, s.ok(), s.ok() ? yes : s.error().message};
}

// A userspace TUN device, the way every userspace VPN makes its interface.
Status probe_tun() {
  int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) return make_error("/dev/net/tun: " + errno_text(errno));
  ifreq ifr{};
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  strncpy(ifr.ifr_name, "vltun0", IFNAMSIZ - 1);
  int rc = ioctl(fd, TUNSETIFF, &ifr);
  int err = errno;
  close(fd);
  if (rc < 0) return make_error("TUNSETIFF: " + errno_text(err));
  return ok_status();
}

// One ESP security association through XFRM netlink: needs the kernel's ESP support.
Status probe_esp() {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_XFRM);
  if (fd < 0) return make_error("NETLINK_XFRM: " + errno_text(errno));
  struct {
    nlmsghdr n;
    xfrm_usersa_info sa;
    char attrs[256];
  } req{};
  req.n.nlmsg_type = XFRM_MSG_NEWSA;
  req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
  req.n.nlmsg_len = NLMSG_LENGTH(sizeof(xfrm_usersa_info));
  req.sa.family = AF_INET;
  req.sa.id.proto = IPPROTO_ESP;
  req.sa.id.spi = htonl(0x1000);
  inet_pton(AF_INET, "10.255.0.2", &req.sa.id.daddr.a4);
  inet_pton(AF_INET, "10.255.0.1", &req.sa.saddr.a4);
  req.sa.mode = XFRM_MODE_TUNNEL;
  req.sa.reqid = 1;
  req.sa.lft.soft_byte_limit = req.sa.lft.hard_byte_limit = XFRM_INF;
  req.sa.lft.soft_packet_limit = req.sa.lft.hard_packet_limit = XFRM_INF;
  // AES-128-GCM: 128-bit key + 32-bit salt, 128-bit ICV.
  auto* rta = reinterpret_cast<nlattr*>(reinterpret_cast<char*>(&req) + NLMSG_ALIGN(req.n.nlmsg_len));
  size_t aead_len = sizeof(xfrm_algo_aead) + 20;
  rta->nla_type = XFRMA_ALG_AEAD;
  rta->nla_len = static_cast<uint16_t>(NLA_HDRLEN + aead_len);
  auto* aead = reinterpret_cast<xfrm_algo_aead*>(reinterpret_cast<char*>(rta) + NLA_HDRLEN);
  strcpy(aead->alg_name, "rfc4106(gcm(aes))");
  aead->alg_key_len = 160;
  aead->alg_icv_len = 128;
  memset(aead->alg_key, 0x42, 20);
  req.n.nlmsg_len = NLMSG_ALIGN(req.n.nlmsg_len) + NLA_ALIGN(rta->nla_len);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  Status result = ok_status();
  if (sendto(fd, &req, req.n.nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0) {
    result = make_error("XFRM_MSG_NEWSA: " + errno_text(errno));
  } else {
    char buf[1024];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    auto* h = reinterpret_cast<nlmsghdr*>(buf);
    if (n < static_cast<ssize_t>(sizeof(nlmsghdr)))
      result = make_error("XFRM: no answer");
    else if (h->nlmsg_type == NLMSG_ERROR) {
      int err = -reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
      if (err) result = make_error("ESP state: " + errno_text(err));
    }
  }
  close(fd);
  return result;
}

}  // namespace

namespace {

// One qdisc kind as the root of `ifname`: tbf and netem with test parameters (they take
// none by default), any other kind with its defaults.
Status try_qdisc(nl_sock* sock, const std::string& ifname, const std::string& kind) {
  if (kind != "netem" && kind != "tbf") return set_root_qdisc(sock, ifname, kind);
  auto idx = link_index(sock, ifname);
  return idx ? add_test_qdisc(sock, *idx, kind) : Status(idx.error());
}

}  // namespace

std::vector<Capability> probe_network_capabilities(const std::string& scratch_ns) {
  std::vector<Capability> caps;
  NetnsRequest scratch{scratch_ns, {}};
  scratch.anonymous = true;  // nothing in /run/netns, nothing to clean up after a kill
  auto made = create_namespaces({scratch});
  caps.push_back(from_status("netns", made ? ok_status() : Status(made.error()), "unshare(CLONE_NEWNET) works"));
  if (!made) return caps;
  Netns& ns = made.value().front();
  nl_sock* sock = ns.sock.get();
  Status veth = create_veth(sock, "vlp0", 0, ns.fd.get(), "vlp1", 1500);
  caps.push_back(from_status("veth", veth, "veth pairs can be made"));
  caps.push_back(from_status("bridge", create_bridge(sock, "vlbr0", 1500), "bridges can be made"));
  Status tun = ok_status();
  (void)run_in_netns(ns.fd.get(), [&] { tun = probe_tun(); });
  caps.push_back(from_status("tun", tun, "/dev/net/tun gives TUN devices"));
  caps.push_back(
      from_status("wireguard-link", create_link_of_kind(sock, "vlwg0", "wireguard"), "the kernel has WireGuard"));
  Status esp = ok_status();
  (void)run_in_netns(ns.fd.get(), [&] { esp = probe_esp(); });
  caps.push_back(from_status("esp-state", esp, "the kernel does ESP (AES-GCM)"));
  for (const char* kind : {"tbf", "netem"})
    caps.push_back(from_status(std::string(kind) + "-qdisc", try_qdisc(sock, "vlp0", kind),
                               std::string(kind) + " qdiscs can be attached"));
  // The qdiscs a [[variant]] may measure (qdisc = "..."), with their defaults.
  for (const char* kind : {"fq", "fq_codel", "cake"})
    caps.push_back(from_status(std::string(kind) + "-qdisc", try_qdisc(sock, "vlp0", kind),
                               std::string(kind) + " qdiscs can be attached (a variant's qdisc)"));
  return caps;  // the anonymous namespace goes with its fds
}

std::vector<std::pair<std::string, Status>> probe_qdiscs(const std::vector<std::string>& kinds) {
  std::vector<std::pair<std::string, Status>> out;
  NetnsRequest scratch{"vpnlab-qdisc-probe", {}};
  scratch.anonymous = true;  // nothing in /run/netns, nothing to clean up after a kill
  auto made = create_namespaces({scratch});
  Status veth = made ? create_veth(made->front().sock.get(), "vq0", 0, made->front().fd.get(), "vq1", 1500)
                     : Status(made.error());
  for (const auto& kind : kinds) out.push_back({kind, veth ? try_qdisc(made->front().sock.get(), "vq0", kind) : veth});
  return out;
}

Capability probe_kvm() {
  Capability c{"kvm", false, ""};
  int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    c.detail = "/dev/kvm: " + errno_text(errno);
    return c;
  }
  int version = ioctl(fd, KVM_GET_API_VERSION, 0);
  int vm = ioctl(fd, KVM_CREATE_VM, 0);
  int err = errno;
  if (vm >= 0) close(vm);
  close(fd);
  c.available = vm >= 0;
  c.detail = vm >= 0 ? "KVM API " + std::to_string(version) +
                           ", a VM can be created (whether a guest boots is the VM backend's boot probe)"
                     : "KVM_CREATE_VM: " + errno_text(err);
  return c;
}

}  // namespace vpnlab
