#include "lab/results/link_ceiling.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>

#include "lab/base/json_number.h"
#include "lab/base/tbf.h"
#include "lab/base/text_table.h"
#include "lab/results/summary.h"

namespace vpnlab {

namespace {

constexpr int kTcpTimestamps = 12;  // Linux sends the timestamp option on every segment

// The slowest shaped link a test's tunnel crosses (nullptr: none).
const nlohmann::json* slowest_link(const nlohmann::json& env, const std::string& test) {
  const nlohmann::json* best = nullptr;
  if (!env.contains("shaped_links") || !env.contains("test_links") || !env["test_links"].contains(test)) return nullptr;
  for (const auto& name : env["test_links"][test])
    for (const auto& l : env["shaped_links"])
      if (l.value("link", "") == name && (!best || l.value("rate_bps", 0.0) < best->value("rate_bps", 0.0))) best = &l;
  return best;
}

}  // namespace

std::vector<LinkShare> link_shares(const std::vector<SampleRow>& rows, const nlohmann::json& env) {
  std::vector<LinkShare> out;
  for (const auto& s : summarize(rows)) {
    const nlohmann::json* link = slowest_link(env, s.test);
    if (!link) continue;
    LinkShare share;
    share.product = s.product;
    share.test = s.test;
    share.link = link->value("link", "");
    share.rate_bps = link->value("rate_bps", 0.0);
    share.burst_bytes = link->value("burst_bytes", 0.0);
    share.limit_bytes = link->value("limit_bytes", 0.0);
    share.median_bps = s.gbps.n ? s.gbps.median * 1e9 : 0;
    share.retransmits = s.metric("retransmits").n ? s.metric("retransmits").median : -1;
    share.baseline_retransmits = s.baseline_retransmits;
    share.generator_bound = s.generator_bound > 0;
    const SampleRow& row = *std::find_if(
        rows.begin(), rows.end(), [&](const SampleRow& r) { return r.product == s.product && r.test == s.test; });
    const nlohmann::json product = env.contains("products") ? env["products"].value(s.product, nlohmann::json::object())
                                                            : nlohmann::json::object();
    const bool tunnel = product.value("tunnel", s.product != "baseline");
    share.overhead = tunnel ? whole_number_or(product, "overhead_bytes", 0) : 0;
    share.mtu = tunnel ? env.contains("overlay") ? whole_number_or(env["overlay"], "mtu", 0) : 0
                       : whole_number_or(*link, "mtu", 0);
    const double directions = row.direction == "bidirectional" ? 2 : 1;  // each end's egress has its own bucket
    if (row.pattern != "one-to-one")
      share.note = "several streams of tests over several links: not computed";
    else if (share.mtu <= 0)
      share.note = "MTU not recorded";
    else if (row.protocol == "udp") {
      // Datagrams of MTU - 28 (the default): one full inner packet each.
      share.ceiling_bps = directions * payload_ceiling_bps(share.rate_bps, share.mtu - 28, share.mtu + share.overhead);
    } else {
      int segment = row.mss > 0 ? std::min(row.mss, share.mtu - 40) : share.mtu - 40;
      int payload = segment - kTcpTimestamps;
      share.ceiling_bps = directions * payload_ceiling_bps(share.rate_bps, payload, segment + 40 + share.overhead);
    }
    out.push_back(share);
  }
  return out;
}

std::vector<std::string> link_share_warnings(const std::vector<LinkShare>& shares) {
  std::vector<std::string> out;
  for (const auto& s : shares) {
    if (s.product == "baseline" || s.ceiling_bps <= 0 || s.median_bps <= 0 || s.retransmits < 1000 || s.generator_bound)
      continue;
    const double share = s.median_bps / s.ceiling_bps;
    if (share >= 0.9 || s.retransmits <= 4 * std::max(s.baseline_retransmits, 0.0)) continue;
    std::string buf = fmt::format(
        "{} / {}: {:.0f} % of what its headers allow on '{}', not generator-bound, with {:.0f} TCP retransmits per "
        "sample (baseline {:.0f}). "
        "The lab cannot tell the cause from its counters: the product may be CPU-bound here (compare its Gbit/s "
        "on an unshaped "
        "link), or lose packets or their order on the way (in its own queues and batching, or in the shaped "
        "link's queue, which "
        "a burstier sender overflows first: compare p99 latency and the queue limit above)",
        s.product, s.test, 100 * share, s.link, s.retransmits, std::max(s.baseline_retransmits, 0.0));
    out.push_back(buf);
  }
  return out;
}

std::string link_share_text(const std::vector<LinkShare>& shares) {
  if (shares.empty()) return "";
  std::string o;
  std::vector<std::string> links;
  for (const auto& s : shares)
    if (std::find(links.begin(), links.end(), s.link) == links.end()) {
      links.push_back(s.link);
      o += fmt::format(
          "shaped link '{}': {:.1f} Mbit/s (TBF: burst {:.0f} B, queue limit {:.0f} B on each end's egress)\n", s.link,
          s.rate_bps / 1e6, s.burst_bytes, s.limit_bytes);
    }
  const TextTable table({-20, -14, 9, 8, 22, 10});
  o += table.line({"product", "test", "Mbit/s", "of rate", "header ceiling", "of ceiling"});
  for (const auto& s : shares) {
    std::string mbit = "-";
    std::string of_rate = "-";
    std::string ceiling = "-";
    std::string of_ceiling = "-";
    if (s.median_bps > 0) {
      mbit = fmt::format("{:.1f}", s.median_bps / 1e6);
      of_rate = fmt::format("{:.1f} %", 100 * s.median_bps / s.rate_bps);
    }
    if (s.ceiling_bps > 0) {
      ceiling = fmt::format("{:.1f} (MTU {}, +{} B)", s.ceiling_bps / 1e6, s.mtu, s.overhead);
      if (s.median_bps > 0) of_ceiling = fmt::format("{:.1f} %", 100 * s.median_bps / s.ceiling_bps);
    }
    o += table.line({s.product, s.test, mbit, of_rate, s.ceiling_bps > 0 ? ceiling : s.note, of_ceiling});
  }
  o += "header ceiling: the shaped rate times each packet's payload over its size on the link (inner IP/TCP headers "
       "with timestamps, "
       "the product's declared per-packet overhead, 14 B Ethernet) at the MTU it ran with\n";
  for (const auto& w : link_share_warnings(shares)) o += "! " + w + "\n";
  return o;
}

}  // namespace vpnlab
