#include "lab/results/load_latency_table.h"

#include <map>
#include <sstream>

#include "lab/base/text_table.h"
#include "lab/results/summary.h"

namespace vpnlab {

std::vector<LoadLatencySummary> summarize_load_latency(const std::vector<SampleRow>& rows) {
  struct Series {
    std::vector<double> idle, p50, p99, added;
  };
  std::vector<LoadLatencySummary> out;
  std::vector<Series> series;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const auto& r : rows) {
    if (r.is_transactions() || r.idle_probes <= 0 || r.latency_probes <= 0 || !counts_as_result(r)) continue;
    auto [at, added] = index.try_emplace({r.product, r.test}, out.size());
    if (added) out.push_back({r.product, r.test, {}, {}, {}, {}}), series.emplace_back();
    Series& v = series[at->second];
    v.idle.push_back(r.idle_p50_ms), v.p50.push_back(r.latency_p50_ms), v.p99.push_back(r.latency_p99_ms), v.added.push_back(r.added_p99_ms);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].idle_p50_ms = describe(series[i].idle);
    out[i].loaded_p50_ms = describe(series[i].p50);
    out[i].loaded_p99_ms = describe(series[i].p99);
    out[i].added_p99_ms = describe(series[i].added);
  }
  return out;
}

std::string load_latency_table(const std::vector<SampleRow>& rows) {
  const auto summaries = summarize_load_latency(rows);
  if (summaries.empty()) return "";
  std::ostringstream o;
  const TextTable table({-20, -16, 16, 16, 16, 22, 6});
  o << "\nlatency the load adds (ICMP through the tunnel: about 20 echoes just before each sample, then one every 10 ms under its load; "
       "ms, median with its 95 % interval)\n"
    << table.line({"product", "test", "idle p50", "loaded p50", "loaded p99", "added p99 (95% int.)", "n"});
  for (const auto& s : summaries) {
    char added[64];
    snprintf(added, sizeof added, "%.2f (%.2f-%.2f)%s", s.added_p99_ms.median, s.added_p99_ms.ci_low, s.added_p99_ms.ci_high,
             s.added_p99_ms.coverage < 0.95 ? "*" : "");
    o << table.line({s.product, s.test, compact_interval(s.idle_p50_ms, "%.3f"), compact_interval(s.loaded_p50_ms, "%.2f"),
                     compact_interval(s.loaded_p99_ms, "%.2f"), added, std::to_string(s.added_p99_ms.n)});
  }
  o << "added p99: the loaded p99 over the idle median of the same sample (what the load adds at the tail); * the interval covers "
       "the median with less than 95 % (fewer than 6 samples: [min, max])\n";
  return o.str();
}

}  // namespace vpnlab
