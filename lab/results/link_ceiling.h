// On a shaped link, how much of it each product delivers: the share of the shaped rate,
// and the ceiling its headers allow at this MTU (the rate times payload over what each
// packet costs on the link: inner headers, the product's declared per-packet overhead,
// Ethernet), so "72 % of the link" can be told apart from "as much as its headers allow".
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/record/results_csv.h"

namespace vpnlab {

struct LinkShare {
  std::string product, test, link;
  double rate_bps = 0, limit_bytes = 0, burst_bytes = 0;
  int mtu = 0, overhead = 0;                           // the product's inner MTU and per-packet overhead on the link
  double ceiling_bps = 0;                              // what its headers allow at that MTU (0: not computed)
  double median_bps = 0;                               // measured, valid rows
  std::string note;                                    // why no ceiling was computed
  double retransmits = -1, baseline_retransmits = -1;  // TCP, medians per sample; -1: none
  bool generator_bound = false;                        // some sample's iperf3 used >= 90 % of a CPU
};

// A product well below its header ceiling, not generator-bound, retransmitting many times
// more than the baseline: what the lab can say about it and what it cannot.
std::vector<std::string> link_share_warnings(const std::vector<LinkShare>& shares);

// From results.csv and environment.json (shaped_links, test_links, products' overhead,
// overlay MTU): one entry per product x test whose tunnel crosses a shaped link.
std::vector<LinkShare> link_shares(const std::vector<SampleRow>& rows, const nlohmann::json& env);

// The block printed under the table ("" when no test crossed a shaped link).
std::string link_share_text(const std::vector<LinkShare>& shares);

}  // namespace vpnlab
