// Link shaping on one interface: a token bucket (TBF) for `rate`, netem for delay,
// jitter and loss. Whether the kernel has them is found out by creating the qdisc: a
// missing one is an error that names it, never a silent unshaped link.
#pragma once
#include <string>

#include "lab/base/result.h"

struct nl_sock;

namespace vpnlab {

struct Shaping {
  double rate_bps = 0;
  double delay_ms = 0, jitter_ms = 0, loss_pct = 0;
  int mtu = 1500;
  // Jitter alone reorders (netem's queue sends each packet at its own time); netem's rate
  // extension, set far above the link, keeps the order, as on a real path, unless this
  // asks otherwise.
  bool reorder = false;
  bool any() const { return rate_bps > 0 || needs_netem(); }
  bool needs_netem() const { return delay_ms > 0 || jitter_ms > 0 || loss_pct > 0; }
};

// Root qdisc on `ifname`: TBF (handle 1:), with netem (10:) as its child when both are
// asked for, or netem alone; a jittered netem has a 100 Gbit/s rate unless `reorder`.
Status apply_shaping(nl_sock* sock, const std::string& ifname, const Shaping& s);

// Replaces the root qdisc of `ifname` with one of `kind` and its default parameters
// ("fq", "fq_codel", "cake", ...): a [[variant]]'s qdisc. A kind the kernel lacks is an
// error naming its module.
Status set_root_qdisc(nl_sock* sock, const std::string& ifname, const std::string& kind);

// The kind of `ifname`'s root qdisc as the kernel reports it ("pfifo_fast", "fq_codel", ...).
Result<std::string> root_qdisc_kind(nl_sock* sock, const std::string& ifname);

// Attaches a test qdisc of `kind` ("tbf" or "netem") as the root of the interface.
Status add_test_qdisc(nl_sock* sock, int ifindex, const std::string& kind);

}  // namespace vpnlab
