#include "lab/results/udp_table.h"

#include <fmt/format.h>
#include <cstdio>
#include <sstream>

#include "lab/base/text_table.h"
#include "lab/results/summary.h"

namespace vpnlab {

std::vector<UdpSummary> summarize_udp(const std::vector<SampleRow>& rows) {
  std::vector<UdpSummary> out;
  for (const auto& g : group_by_product_test(rows, [](const SampleRow& r) { return r.protocol == "udp"; })) {
    UdpSummary s{g.product, g.test, g.rows.front()->payload_bytes};
    s.rows = static_cast<int>(g.rows.size());
    std::vector<double> kpps, offered, zl_mbps, zl_kpps;
    for (const SampleRow* r : g.rows) {
      if (!counts_as_result(*r)) continue;
      kpps.push_back(r->pps / 1000), offered.push_back(r->offered_bps / 1e6);
      if (r->zero_loss_bps > 0) zl_mbps.push_back(r->zero_loss_bps / 1e6), zl_kpps.push_back(r->pps / 1000);
    }
    s.kpps = describe(kpps);
    s.loss_pct = describe_field(g.rows, &SampleRow::loss_pct);
    s.offered_mbps = describe(offered);
    s.zero_loss_mbps = describe(zl_mbps);
    s.zero_loss_kpps = describe(zl_kpps);
    out.push_back(std::move(s));
  }
  return out;
}

std::string udp_table(const std::vector<SampleRow>& rows) {
  const auto summaries = summarize_udp(rows);
  if (summaries.empty()) return "";
  std::ostringstream o;
  const TextTable table({-20, -14, 8, 12, 10, 9, 18, 15, 6});
  o << "\nUDP by payload size\n"
    << table.line({"product", "test", "payload", "offered Mb/s", "kpps", "loss %", "zero-loss Mbit/s", "zero-loss kpps",
                   "valid"});
  for (const auto& s : summaries) {
    // The median at `digits` decimals; "-" where nothing was measured.
    auto med = [](const SampleStats& st, int digits) {
      return st.n == 0 ? std::string("-") : fmt::format("{:.{}f}", st.median, digits);
    };
    o << table.line({s.product, s.test, std::to_string(s.payload_bytes), med(s.offered_mbps, 0), med(s.kpps, 1),
                     med(s.loss_pct, 3), med(s.zero_loss_mbps, 1), med(s.zero_loss_kpps, 1),
                     fmt::format("{}/{}", s.kpps.n, s.rows)});
  }
  o << "kpps: datagrams the receiver's interface counted per second (for a zero-loss search, at the highest rate "
       "within its "
       "threshold); zero-loss: that rate, median over samples (\"-\": no search, or no rate tried met the threshold)\n";
  return o.str();
}

nlohmann::json udp_json(const std::vector<SampleRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : summarize_udp(rows)) {
    out.push_back({{"product", s.product},
                   {"test", s.test},
                   {"payload_bytes", s.payload_bytes},
                   {"rows", s.rows},
                   {"valid_rows", s.kpps.n},
                   {"kpps_median", s.kpps.median},
                   {"loss_pct_median", s.loss_pct.median},
                   {"offered_mbps_median", s.offered_mbps.median},
                   {"zero_loss_mbps_median",
                    s.zero_loss_mbps.n ? nlohmann::json(s.zero_loss_mbps.median) : nlohmann::json(nullptr)},
                   {"zero_loss_kpps_median",
                    s.zero_loss_kpps.n ? nlohmann::json(s.zero_loss_kpps.median) : nlohmann::json(nullptr)}});
  }
  return out;
}

}  // namespace vpnlab
