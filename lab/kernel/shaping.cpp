#include "lab/kernel/shaping.h"

#include "lab/base/tbf.h"

#include <algorithm>
#include <cstdint>
#include <memory>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

namespace vpnlab {

namespace {

struct QdiscFree {
  void operator()(rtnl_qdisc* q) const { rtnl_qdisc_put(q); }
};
using Qdisc = std::unique_ptr<rtnl_qdisc, QdiscFree>;

Result<Qdisc> make_qdisc(int ifindex, const std::string& kind, uint32_t parent, uint32_t handle) {
  Qdisc q(rtnl_qdisc_alloc());
  rtnl_tc* tc = TC_CAST(q.get());
  rtnl_tc_set_ifindex(tc, ifindex);
  rtnl_tc_set_parent(tc, parent);
  if (handle) rtnl_tc_set_handle(tc, handle);
  if (int err = rtnl_tc_set_kind(tc, kind.c_str()); err < 0) return make_error(kind + ": " + nl_geterror(err));
  return q;
}

void set_tbf(rtnl_qdisc* q, double rate_bps, int mtu) {
  TbfParams p = tbf_params(rate_bps, mtu);  // plan.txt and environment.json say the same
  rtnl_qdisc_tbf_set_rate(q, static_cast<int>(p.rate_bytes_per_s), static_cast<int>(p.burst_bytes), 0);
  rtnl_qdisc_tbf_set_limit(q, static_cast<int>(p.limit_bytes));
}

// The kernel takes netem's loss as a fraction of 2^32 - 1.
uint32_t netem_probability(double pct) { return static_cast<uint32_t>(pct / 100 * 4294967295.0); }

void set_netem(rtnl_qdisc* q, double delay_ms, double jitter_ms, double loss_pct) {
  rtnl_netem_set_delay(q, static_cast<int>(delay_ms * 1000));  // microseconds
  if (jitter_ms > 0) rtnl_netem_set_jitter(q, static_cast<int>(jitter_ms * 1000));
  if (loss_pct > 0) rtnl_netem_set_loss(q, static_cast<int>(netem_probability(loss_pct)));
}

Status add_failed(int err, const std::string& ifname, const std::string& kind) {
  std::string hint = kind == "netem" ? "this kernel lacks sch_netem: remove delay/jitter/loss (or the profile) from "
                                       "the link, or run where netem exists (the VM backend's guests have it)"
                                     : "this kernel lacks sch_tbf: remove rate from the link";
  return make_error("link '" + ifname + "': cannot attach a " + kind + " qdisc: " + nl_geterror(err), hint);
}

Status add(nl_sock* sock, rtnl_qdisc* q, const std::string& ifname, const std::string& kind) {
  int err = rtnl_qdisc_add(sock, q, NLM_F_CREATE | NLM_F_REPLACE);
  return err >= 0 ? ok_status() : add_failed(err, ifname, kind);
}

// netem's rate extension, far above any link here: with a rate, netem times each packet
// from the one queued before it (it leaves at its own delay or right after that one,
// whichever is later), so jittered packets keep their order. A FIFO child does not do
// that: netem sorts by departure time before the child sees a packet (measured in
// guests: 246 of 491 echoes overtaken at 25 +- 10 ms with a pfifo child).
constexpr uint64_t kInOrderRateBytesPerS = 100'000'000'000 / 8;  // 100 Gbit/s: 0.1 us a 1500-byte packet

// The in-order netem, as libnl cannot send it (it has no setter for the rate): netem's
// options are its tc_netem_qopt followed by attributes, all inside TCA_OPTIONS.
Status add_in_order_netem(nl_sock* sock, int ifindex, uint32_t parent, const Shaping& s, const std::string& ifname) {
  std::unique_ptr<nl_msg, void (*)(nl_msg*)> msg(nlmsg_alloc_simple(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE),
                                                 nlmsg_free);
  if (!msg) return make_error("link '" + ifname + "': netem: out of memory");
  tcmsg tcm{};
  tcm.tcm_family = AF_UNSPEC;
  tcm.tcm_ifindex = ifindex;
  tcm.tcm_parent = parent;
  tcm.tcm_handle = TC_HANDLE(10, 0);
  tc_netem_qopt qopt{};
  qopt.limit = 1000;  // netem's own default, as libnl and tc send it
  qopt.latency = nl_us2ticks(static_cast<uint32_t>(s.delay_ms * 1000));
  qopt.jitter = nl_us2ticks(static_cast<uint32_t>(s.jitter_ms * 1000));
  qopt.loss = netem_probability(s.loss_pct);
  tc_netem_rate rate{};
  rate.rate = UINT32_MAX;  // the 32-bit field's cap; RATE64 raises it
  nlattr* options = nullptr;
  if (nlmsg_append(msg.get(), &tcm, sizeof tcm, NLMSG_ALIGNTO) < 0 ||
      nla_put_string(msg.get(), TCA_KIND, "netem") < 0 || !(options = nla_nest_start(msg.get(), TCA_OPTIONS)) ||
      nlmsg_append(msg.get(), &qopt, sizeof qopt, NLMSG_ALIGNTO) < 0 ||
      nla_put(msg.get(), TCA_NETEM_RATE, sizeof rate, &rate) < 0 ||
      nla_put_u64(msg.get(), TCA_NETEM_RATE64, kInOrderRateBytesPerS) < 0)
    return make_error("link '" + ifname + "': netem: the message does not fit");
  nla_nest_end(msg.get(), options);
  const int err = nl_send_sync(sock, msg.release());  // it frees the message
  return err >= 0 ? ok_status() : add_failed(err, ifname, "netem");
}

}  // namespace

Status add_test_qdisc(nl_sock* sock, int ifindex, const std::string& kind) {
  auto q = make_qdisc(ifindex, kind, TC_H_ROOT, 0);
  if (!q) return q.error();
  if (kind == "tbf")
    set_tbf(q->get(), 1e9, 1500);
  else
    set_netem(q->get(), 1, 0, 0);
  int err = rtnl_qdisc_add(sock, q->get(), NLM_F_CREATE | NLM_F_REPLACE);
  if (err < 0) return make_error(kind + " qdisc: " + nl_geterror(err));
  return ok_status();
}

Status set_root_qdisc(nl_sock* sock, const std::string& ifname, const std::string& kind) {
  rtnl_link* link = nullptr;
  if (int err = rtnl_link_get_kernel(sock, 0, ifname.c_str(), &link); err < 0)
    return make_error("link '" + ifname + "': " + nl_geterror(err));
  const int ifindex = rtnl_link_get_ifindex(link);
  rtnl_link_put(link);
  // No handle: the kernel picks one, so a root of another kind is replaced, not clashed with.
  auto q = make_qdisc(ifindex, kind, TC_H_ROOT, 0);
  if (!q) return q.error();
  // libnl sends a fifo only with its limit: the kernel's own default for a veth's
  // txqueuelen of 1000.
  if (kind == "pfifo") rtnl_qdisc_fifo_set_limit(q->get(), 1000);
  if (int err = rtnl_qdisc_add(sock, q->get(), NLM_F_CREATE | NLM_F_REPLACE); err < 0)
    return make_error(
        "link '" + ifname + "': cannot attach a " + kind + " qdisc: " + nl_geterror(err),
        err == -NLE_OBJ_NOTFOUND || err == -NLE_NOATTR || err == -NLE_OPNOTSUPP
            ? "this kernel lacks sch_" + kind +
                  " ('vpnlab doctor' lists the qdiscs it has): measure another qdisc, or run where it exists"
            : "");
  return ok_status();
}

Result<std::string> root_qdisc_kind(nl_sock* sock, const std::string& ifname) {
  rtnl_link* link = nullptr;
  if (int err = rtnl_link_get_kernel(sock, 0, ifname.c_str(), &link); err < 0)
    return make_error("link '" + ifname + "': " + nl_geterror(err));
  const int ifindex = rtnl_link_get_ifindex(link);
  rtnl_link_put(link);
  nl_cache* cache = nullptr;
  if (int err = rtnl_qdisc_alloc_cache(sock, &cache); err < 0)
    return make_error(std::string("qdiscs: ") + nl_geterror(err));
  std::unique_ptr<nl_cache, void (*)(nl_cache*)> owned(cache, nl_cache_free);
  Qdisc root(rtnl_qdisc_get_by_parent(cache, ifindex, TC_H_ROOT));
  if (!root) return make_error("link '" + ifname + "': no root qdisc");
  const char* kind = rtnl_tc_get_kind(TC_CAST(root.get()));
  return std::string(kind ? kind : "");
}

Status apply_shaping(nl_sock* sock, const std::string& ifname, const Shaping& s) {
  if (!s.any()) return ok_status();
  rtnl_link* link = nullptr;
  if (int err = rtnl_link_get_kernel(sock, 0, ifname.c_str(), &link); err < 0)
    return make_error("link '" + ifname + "': " + nl_geterror(err));
  int ifindex = rtnl_link_get_ifindex(link);
  rtnl_link_put(link);
  if (s.rate_bps > 0) {
    auto tbf = make_qdisc(ifindex, "tbf", TC_H_ROOT, TC_HANDLE(1, 0));
    if (!tbf) return tbf.error();
    set_tbf(tbf->get(), s.rate_bps, s.mtu);
    if (auto r = add(sock, tbf->get(), ifname, "tbf"); !r) return r;
  }
  if (s.needs_netem()) {
    // Under the TBF's single class when both are asked for, else the root.
    const uint32_t parent = s.rate_bps > 0 ? TC_HANDLE(1, 1) : TC_H_ROOT;
    if (s.jitter_ms > 0 && !s.reorder) return add_in_order_netem(sock, ifindex, parent, s, ifname);
    auto netem = make_qdisc(ifindex, "netem", parent, TC_HANDLE(10, 0));
    if (!netem) return netem.error();
    set_netem(netem->get(), s.delay_ms, s.jitter_ms, s.loss_pct);
    if (auto r = add(sock, netem->get(), ifname, "netem"); !r) return r;
  }
  return ok_status();
}

}  // namespace vpnlab
