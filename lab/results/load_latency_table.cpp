#include "lab/results/load_latency_table.h"

#include <fmt/format.h>
#include <sstream>

#include "lab/base/text_table.h"
#include "lab/results/summary.h"

namespace vpnlab {

std::vector<LoadLatencySummary> summarize_load_latency(const std::vector<SampleRow>& rows) {
  auto measured = [](const SampleRow& r) {
    return !r.is_transactions() && r.idle_probes > 0 && r.latency_probes > 0 && counts_as_result(r);
  };
  std::vector<LoadLatencySummary> out;
  for (const auto& g : group_by_product_test(rows, measured))
    out.push_back({g.product, g.test, describe_field(g.rows, &SampleRow::idle_p50_ms),
                   describe_field(g.rows, &SampleRow::latency_p50_ms),
                   describe_field(g.rows, &SampleRow::latency_p99_ms),
                   describe_field(g.rows, &SampleRow::added_p99_ms)});
  return out;
}

std::string load_latency_table(const std::vector<SampleRow>& rows) {
  const auto summaries = summarize_load_latency(rows);
  if (summaries.empty()) return "";
  std::ostringstream o;
  const TextTable table({-20, -16, 16, 16, 16, 22, 6});
  o << "\nlatency the load adds (ICMP through the tunnel: about 20 echoes just before each sample, then one every 10 "
       "ms under its load; "
       "ms, median with its 95 % interval)\n"
    << table.line({"product", "test", "idle p50", "loaded p50", "loaded p99", "added p99 (95% int.)", "n"});
  for (const auto& s : summaries) {
    std::string added = fmt::format("{:.2f} ({:.2f}-{:.2f}){}", s.added_p99_ms.median, s.added_p99_ms.ci_low,
                                    s.added_p99_ms.ci_high, s.added_p99_ms.coverage < 0.95 ? "*" : "");
    o << table.line({s.product, s.test, compact_interval(s.idle_p50_ms, "{:.3f}"),
                     compact_interval(s.loaded_p50_ms, "{:.2f}"), compact_interval(s.loaded_p99_ms, "{:.2f}"), added,
                     std::to_string(s.added_p99_ms.n)});
  }
  o << "added p99: the loaded p99 over the idle median of the same sample (what the load adds at the tail); * the "
       "interval covers "
       "the median with less than 95 % (fewer than 6 samples: [min, max])\n";
  return o.str();
}

}  // namespace vpnlab
