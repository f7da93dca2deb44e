#include "lab/record/metrics.h"

namespace vpnlab {

namespace {
bool always(const SampleRow&) { return true; }
bool echoed(const SampleRow& r) { return r.latency_probes > 0; }
}  // namespace

const std::vector<MetricColumn>& metric_columns() {
  static const std::vector<MetricColumn> table = {
      {"gbps", "Gbit/s", true, "faster", "slower", false, [](const SampleRow& r) { return r.gbps; }, always},
      {"cpu_s_per_gbit", "CPU-s/Gbit", false, "cheaper", "costlier", true, [](const SampleRow& r) { return r.cpu_s_per_gbit; },
       [](const SampleRow& r) { return r.cpu_s_per_gbit > 0; }},
      {"daemon_rss_kb", "daemon peak RSS", false, "smaller", "larger", true, [](const SampleRow& r) { return static_cast<double>(r.daemon_rss_kb); },
       [](const SampleRow& r) { return r.daemon_rss_kb > 0; }},
      {"latency_p99_ms", "p99 latency", false, "lower", "higher", true, [](const SampleRow& r) { return echoed(r) ? r.latency_p99_ms : 0.0; }, echoed},
      {"latency_p50_ms", "p50 latency", false, "lower", "higher", false, [](const SampleRow& r) { return echoed(r) ? r.latency_p50_ms : 0.0; }, echoed},
      {"pps", "packets/s", true, "more", "fewer", false, [](const SampleRow& r) { return r.pps; }, [](const SampleRow& r) { return r.pps > 0; }},
      {"wire_pps", "wire packets/s", true, "more", "fewer", false, [](const SampleRow& r) { return r.wire_pps; },
       [](const SampleRow& r) { return r.wire_pps > 0; }},
      {"cpu_user_s", "CPU-s user", false, "cheaper", "costlier", false, [](const SampleRow& r) { return r.cpu_user_s; }, always},
      {"cpu_sys_s", "CPU-s sys", false, "cheaper", "costlier", false, [](const SampleRow& r) { return r.cpu_sys_s; }, always},
      {"cpu_softirq_s", "CPU-s softirq", false, "cheaper", "costlier", false, [](const SampleRow& r) { return r.cpu_softirq_s; }, always},
      {"bringup_s", "bring-up s", false, "quicker", "slower", false, [](const SampleRow& r) { return r.bringup_s; },
       [](const SampleRow& r) { return r.bringup_s > 0; }},
      {"retransmits", "TCP retransmits", false, "fewer", "more", false, [](const SampleRow& r) { return static_cast<double>(r.retransmits); },
       [](const SampleRow& r) { return r.retransmits >= 0 && r.protocol != "udp"; }},
  };
  return table;
}

const MetricColumn& metric_column(const std::string& key) {
  for (const auto& m : metric_columns())
    if (m.key == key) return m;
  return metric_columns().front();
}

}  // namespace vpnlab
