#include "lab/kernel/shaping.h"

#include "lab/base/tbf.h"

#include <algorithm>
#include <cstdint>
#include <memory>

#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

namespace vpnlab {

namespace {

struct QdiscFree { void operator()(rtnl_qdisc* q) const { rtnl_qdisc_put(q); } };
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

void set_netem(rtnl_qdisc* q, double delay_ms, double jitter_ms, double loss_pct) {
  rtnl_netem_set_delay(q, static_cast<int>(delay_ms * 1000));  // microseconds
  if (jitter_ms > 0) rtnl_netem_set_jitter(q, static_cast<int>(jitter_ms * 1000));
  // The kernel takes loss as a fraction of 2^32 - 1.
  if (loss_pct > 0) rtnl_netem_set_loss(q, static_cast<int>(static_cast<uint32_t>(loss_pct / 100 * 4294967295.0)));
}

Status add(nl_sock* sock, rtnl_qdisc* q, const std::string& ifname, const std::string& kind) {
  int err = rtnl_qdisc_add(sock, q, NLM_F_CREATE | NLM_F_REPLACE);
  if (err >= 0) return ok_status();
  std::string hint = kind == "netem" ? "this kernel lacks sch_netem: remove delay/jitter/loss (or the profile) from the link, or run where netem exists (the VM backend's guests have it)"
                                     : "this kernel lacks sch_tbf: remove rate from the link";
  return make_error("link '" + ifname + "': cannot attach a " + kind + " qdisc: " + nl_geterror(err), hint);
}

}  // namespace

Status add_test_qdisc(nl_sock* sock, int ifindex, const std::string& kind) {
  auto q = make_qdisc(ifindex, kind, TC_H_ROOT, 0);
  if (!q) return q.error();
  if (kind == "tbf") set_tbf(q->get(), 1e9, 1500);
  else set_netem(q->get(), 1, 0, 0);
  int err = rtnl_qdisc_add(sock, q->get(), NLM_F_CREATE | NLM_F_REPLACE);
  if (err < 0) return make_error(kind + " qdisc: " + nl_geterror(err));
  return ok_status();
}

Status set_root_qdisc(nl_sock* sock, const std::string& ifname, const std::string& kind) {
  rtnl_link* link = nullptr;
  if (int err = rtnl_link_get_kernel(sock, 0, ifname.c_str(), &link); err < 0) return make_error("link '" + ifname + "': " + nl_geterror(err));
  const int ifindex = rtnl_link_get_ifindex(link);
  rtnl_link_put(link);
  // No handle: the kernel picks one, so a root of another kind is replaced, not clashed with.
  auto q = make_qdisc(ifindex, kind, TC_H_ROOT, 0);
  if (!q) return q.error();
  // libnl sends a fifo only with its limit: the kernel's own default for a veth's
  // txqueuelen of 1000.
  if (kind == "pfifo") rtnl_qdisc_fifo_set_limit(q->get(), 1000);
  if (int err = rtnl_qdisc_add(sock, q->get(), NLM_F_CREATE | NLM_F_REPLACE); err < 0)
    return make_error("link '" + ifname + "': cannot attach a " + kind + " qdisc: " + nl_geterror(err),
                      err == -NLE_OBJ_NOTFOUND || err == -NLE_NOATTR || err == -NLE_OPNOTSUPP
                          ? "this kernel lacks sch_" + kind + " ('vpnlab doctor' lists the qdiscs it has): measure another qdisc, or run where it exists"
                          : "");
  return ok_status();
}

Result<std::string> root_qdisc_kind(nl_sock* sock, const std::string& ifname) {
  rtnl_link* link = nullptr;
  if (int err = rtnl_link_get_kernel(sock, 0, ifname.c_str(), &link); err < 0) return make_error("link '" + ifname + "': " + nl_geterror(err));
  const int ifindex = rtnl_link_get_ifindex(link);
  rtnl_link_put(link);
  nl_cache* cache = nullptr;
  if (int err = rtnl_qdisc_alloc_cache(sock, &cache); err < 0) return make_error(std::string("qdiscs: ") + nl_geterror(err));
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
    auto netem = make_qdisc(ifindex, "netem", s.rate_bps > 0 ? TC_HANDLE(1, 1) : TC_H_ROOT, TC_HANDLE(10, 0));
    if (!netem) return netem.error();
    set_netem(netem->get(), s.delay_ms, s.jitter_ms, s.loss_pct);
    if (auto r = add(sock, netem->get(), ifname, "netem"); !r) return r;
    if (s.jitter_ms > 0 && !s.reorder) {  // netem's man page: a pfifo child sends in arrival order
      auto fifo = make_qdisc(ifindex, "pfifo", TC_HANDLE(10, 1), TC_HANDLE(11, 0));
      if (!fifo) return fifo.error();
      rtnl_qdisc_fifo_set_limit(fifo->get(), 1000);
      if (auto r = add(sock, fifo->get(), ifname, "pfifo"); !r) return r;
    }
  }
  return ok_status();
}

}  // namespace vpnlab
