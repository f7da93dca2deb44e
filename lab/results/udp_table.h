// UDP tests by payload size: the rate delivered in packets, the loss, and where a test
// searched for it, the zero-loss rate (lab/run/zero_loss.h). Small datagrams show a
// product's per-packet cost, which bulk TCP (GSO, 64 KB segments) hides.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/stats.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

struct UdpSummary {
  std::string product, test;
  int payload_bytes = 0;
  int rows = 0;
  SampleStats kpps, loss_pct, offered_mbps;    // valid rows only
  SampleStats zero_loss_mbps, zero_loss_kpps;  // rows of a search that found a passing rate
};

std::vector<UdpSummary> summarize_udp(const std::vector<SampleRow>& rows);
// "" without UDP rows.
std::string udp_table(const std::vector<SampleRow>& rows);
nlohmann::json udp_json(const std::vector<SampleRow>& rows);

}  // namespace vpnlab
