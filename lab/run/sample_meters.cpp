#include "lab/run/sample_meters.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "lab/base/cpu_stat.h"
#include "lab/base/fs_util.h"
#include "lab/record/run_layout.h"
#include "lab/run/rss_sampler.h"
#include "lab/run/variant.h"

namespace vpnlab {

namespace {

constexpr int kLatencyIntervalMs = 10;
// The idle round trip before the load: a probe every 5 ms for 100 ms (about 20 echoes), a
// window short beside any sample and long enough for a median.
constexpr int kIdleIntervalMs = 5;
constexpr int kIdleWindowMs = 100;
constexpr int kRssIntervalMs = 100;  // memory over time: ten points a second

// Sums the machines; on hosts, each machine's busy seconds and softirq shares are kept
// per host ("h1:1.234;h2:0.987", "h1/0:0.62;h1/1:0.38;h2/0:1"). Returns the sum.
CpuTimes record_cpu(const std::vector<NodeRuntime::MachineCpu>& before,
                    const std::vector<NodeRuntime::MachineCpu>& after, SampleRow* row) {
  CpuTimes cpu;
  std::string by_host, softirq;
  for (size_t m = 0; m < after.size() && m < before.size(); ++m) {
    CpuTimes delta = after[m].total - before[m].total;
    cpu = cpu + delta;
    std::vector<CpuTimes> per_cpu = after[m].per_cpu;
    for (size_t i = 0; i < per_cpu.size() && i < before[m].per_cpu.size(); ++i)
      per_cpu[i] = per_cpu[i] - before[m].per_cpu[i];
    std::string shares = softirq_shares(per_cpu);
    if (after[m].name.empty()) {
      softirq = shares;
      continue;
    }
    std::string buf = fmt::format("{:.3f}", delta.busy());
    by_host += (by_host.empty() ? "" : ";") + after[m].name + ":" + buf;
    for (size_t at = 0; !shares.empty();) {
      size_t end = shares.find(';', at);
      softirq += (softirq.empty() ? "" : ";") + after[m].name + "/" +
                 shares.substr(at, end == std::string::npos ? end : end - at);
      if (end == std::string::npos) break;
      at = end + 1;
    }
  }
  row->cpu_by_host = by_host;
  row->softirq_by_cpu = softirq;
  row->cpu_s = cpu.busy();
  row->cpu_user_s = cpu.user + cpu.nice;
  row->cpu_sys_s = cpu.system + cpu.irq;
  row->cpu_softirq_s = cpu.softirq;
  row->steal_s = cpu.steal;
  return cpu;
}

}  // namespace

// Busy CPU seconds of the machine(s) over the clients' run, and the share of their time
// the hypervisor took (steal).
class CpuMeter : public SampleMeter {
 public:
  Status begin(const SampleContext& c) override {
    auto t = c.nodes->cpu_times();
    if (!t) return t.error();
    before_ = std::move(*t);
    return ok_status();
  }
  Status end(const SampleContext& c, const std::string&, SampleRow* row) override {
    auto after = c.nodes->cpu_times();
    if (!after) return after.error();
    const CpuTimes sum = record_cpu(before_, *after, row);
    const double total = sum.busy() + sum.idle + sum.iowait + sum.steal;
    steal_share_ = total > 0 ? sum.steal / total : 0;
    return ok_status();
  }
  double steal_share() const { return steal_share_; }

 private:
  std::vector<NodeRuntime::MachineCpu> before_;
  double steal_share_ = 0;
};

double steal_share(const CpuMeter* meter) { return meter ? meter->steal_share() : 0; }

std::string steal_verdict(double share) {
  if (!(share > kMaxStealShare)) return "";
  return fmt::format(
      "{}the hypervisor took {:.0f} % of the CPUs' time during the sample (steal; above {:.0f} % it measures the "
      "host's other guests as much as the product)",
      kDisturbedPrefix, 100 * share, 100 * kMaxStealShare);
}

namespace {

// The product's daemons' memory every 100 ms: the report's memory over time.
class RssMeter : public SampleMeter {
 public:
  Status begin(const SampleContext& c) override {
    sampler_.emplace(c.session->daemon_processes(), kRssIntervalMs);
    return ok_status();
  }
  Status end(const SampleContext& c, const std::string& label, SampleRow*) override {
    std::vector<RssPoint> points = sampler_->stop();
    if (points.empty()) return ok_status();
    return write_file(c.raw_dir + "/" + label + kRssSuffix, RssSampler::format(points), 0640);
  }

 private:
  std::optional<RssSampler> sampler_;
};

// A variant's rules: what their counters said before the clients, to count what they matched.
class RuleMeter : public SampleMeter {
 public:
  Status begin(const SampleContext& c) override {
    auto n = variant_packets(*c.plan, *c.nodes);
    if (!n) return n.error();
    before_ = *n;
    return ok_status();
  }
  Status end(const SampleContext& c, const std::string&, SampleRow* row) override {
    auto after = variant_packets(*c.plan, *c.nodes);
    if (!after) return after.error();
    if (before_ >= 0) row->rule_packets = *after - before_;
    return ok_status();
  }

 private:
  int64_t before_ = -1;
};

// Peak RSS and threads of the product's daemons, from the session's own accounting.
class DaemonUsageMeter : public SampleMeter {
 public:
  Status begin(const SampleContext&) override { return ok_status(); }
  Status end(const SampleContext& c, const std::string&, SampleRow* row) override {
    for (const auto& [node, use] : c.session->daemon_usage()) {
      row->daemon_rss_kb = std::max(row->daemon_rss_kb, use.rss_kb);
      row->daemon_threads = std::max(row->daemon_threads, use.threads);
    }
    return ok_status();
  }
};

// A native relay's own cost: what the daemons on the relay nodes the test crosses used
// during the sample (their CPU seconds; their peak memory). The machine-wide CPU and the
// busiest node's RSS hide it among the ends'. The kernel's softirq work for their packets
// is counted in cpu_s only. A baseline's relay runs no daemon: nothing to record.
class RelayMeter : public SampleMeter {
 public:
  Status begin(const SampleContext& c) override {
    for (const auto& server : c.test->spec.servers)
      for (const PlanHop* hop :
           c.plan->hops_between(c.plan->node(c.test->spec.client)->vpn_node(), c.plan->node(server)->vpn_node()))
        relays_.insert(hop->relays.begin(), hop->relays.end());
    if (!relays_.empty()) before_s_ = cpu_of_relays(c);
    return ok_status();
  }
  Status end(const SampleContext& c, const std::string&, SampleRow* row) override {
    if (relays_.empty()) return ok_status();
    int64_t rss_kb = 0;
    for (const auto& [node, use] : c.session->daemon_usage())
      if (relays_.count(node)) rss_kb += use.rss_kb;
    if (rss_kb <= 0) return ok_status();  // no daemon on the relay (the baseline), or not readable
    row->relay_rss_kb = rss_kb;
    row->relay_cpu_s = std::max(0.0, cpu_of_relays(c) - before_s_);
    return ok_status();
  }

 private:
  double cpu_of_relays(const SampleContext& c) const {
    double cpu_s = 0;
    for (const auto& [node, process] : c.session->daemon_processes())
      if (relays_.count(node)) cpu_s += process->cpu_seconds();
    return cpu_s;
  }

  std::set<std::string> relays_;
  double before_s_ = 0;
};

}  // namespace

// ICMP through the tunnel: for a moment just before the load (the idle round trip), then
// every 10 ms under the sample's load (where the backend has a probe). The loaded round
// trips go to the report's latency distribution; their excess over the idle median is the
// latency the load adds.
class LatencyMeter : public SampleMeter {
 public:
  // `under_load`: echoes beside traffic (the idle moment first); else the echoes are the test.
  explicit LatencyMeter(bool under_load) : under_load_(under_load) {}
  Status begin(const SampleContext& c) override {
    const Ipv4Addr target = c.plan->target_address(*c.test, 0, c.session->tunnel());
    const bool idle_known = under_load_ && c.idle_from && c.idle_from->idle_probes > 0;
    if (idle_known)
      idle_ = LatencyProbe::Summary{
          .sent = c.idle_from->idle_probes, .answered = c.idle_from->idle_probes, .p50_ms = c.idle_from->idle_p50_ms};
    auto idle = under_load_ && !idle_known ? c.nodes->latency_probe(c.test->spec.client, target, kIdleIntervalMs, 0)
                                           : Result<std::unique_ptr<LatencyProbe>>(nullptr);
    if (!idle) return idle.error();
    if (*idle) {
      (void)measurement_window_interrupted(c.interrupt_fd, kIdleWindowMs);
      idle_ = (*idle)->stop();
    }
    auto lp = c.nodes->latency_probe(c.test->spec.client, target, kLatencyIntervalMs, 0);
    if (!lp) return lp.error();
    probe_ = std::move(lp.value());
    return ok_status();
  }
  Status end(const SampleContext& c, const std::string& label, SampleRow* row) override {
    if (!probe_) return ok_status();
    summary_ = probe_->stop();
    row->latency_p50_ms = summary_->p50_ms;
    row->latency_p99_ms = summary_->p99_ms;
    row->latency_probes = summary_->answered;
    record_added(row);
    std::string rtts;
    std::string buf;
    for (double ms : summary_->rtts_ms) buf = fmt::format("{:.4f}\n", ms), rtts += buf;
    return write_file(c.raw_dir + "/" + label + kRttSuffix, rtts, 0640);
  }
  const LatencyProbe::Summary* summary() const { return summary_ ? &*summary_ : nullptr; }

 private:
  // Only when both the idle and the loaded probes were answered.
  void record_added(SampleRow* row) const {
    if (!idle_ || idle_->answered == 0 || summary_->answered == 0) return;
    row->idle_probes = idle_->answered;
    row->idle_p50_ms = idle_->p50_ms;
    row->added_p50_ms = summary_->p50_ms - idle_->p50_ms;
    row->added_p99_ms = summary_->p99_ms - idle_->p50_ms;
  }

  bool under_load_;
  std::unique_ptr<LatencyProbe> probe_;  // stays empty where the backend has none
  std::optional<LatencyProbe::Summary> idle_;
  std::optional<LatencyProbe::Summary> summary_;
};

const LatencyProbe::Summary* latency_summary(const LatencyMeter* meter) { return meter ? meter->summary() : nullptr; }

namespace {

// One entry per meter, in begin order: its name (RunOptions::meters_off), what makes it (or
// nullptr where it has nothing to measure for this sample), and whether a discarded sample
// (a warm-up, the plaintext check's own) still runs it: where a row's validity depends on
// it (a variant's rule counters), or where it is the test itself (a latency test's echoes).
// Elsewhere what it measures would only cost time there.
struct MeterEntry {
  const char* name;
  std::unique_ptr<SampleMeter> (*make)(const SampleContext& c, const TestDriver& driver);
  bool (*kept_when_discarded)(const TestDriver& driver) = nullptr;
};

const MeterEntry kMeters[] = {
    {"daemon-usage",
     [](const SampleContext&, const TestDriver&) -> std::unique_ptr<SampleMeter> {
       return std::make_unique<DaemonUsageMeter>();
     }},
    {"relay",
     [](const SampleContext&, const TestDriver&) -> std::unique_ptr<SampleMeter> {
       return std::make_unique<RelayMeter>();
     }},
    {"latency",
     [](const SampleContext& c, const TestDriver& driver) -> std::unique_ptr<SampleMeter> {
       if (c.repeating_payload || !driver.with_echoes()) return nullptr;
       return std::make_unique<LatencyMeter>(driver.kind() == "throughput");
     },
     [](const TestDriver& driver) { return driver.kind() != "throughput"; }},
    {"rules",
     [](const SampleContext&, const TestDriver&) -> std::unique_ptr<SampleMeter> {
       return std::make_unique<RuleMeter>();
     },
     [](const TestDriver&) { return true; }},
    {"cpu",
     [](const SampleContext&, const TestDriver&) -> std::unique_ptr<SampleMeter> {
       return std::make_unique<CpuMeter>();
     }},
    {"rss",
     [](const SampleContext&, const TestDriver&) -> std::unique_ptr<SampleMeter> {
       return std::make_unique<RssMeter>();
     }},
};

}  // namespace

std::vector<std::string> meter_names() {
  std::vector<std::string> out;
  for (const auto& m : kMeters) out.push_back(m.name);
  return out;
}

double idle_window_s(const SampleRow& row) { return row.idle_probes > 0 ? kIdleWindowMs / 1000.0 : 0; }

SampleMeters sample_meters(const SampleContext& c, const TestDriver& driver) {
  SampleMeters m;
  for (const auto& entry : kMeters) {
    if (c.meters_off.count(entry.name)) continue;
    if (c.discarded && !(entry.kept_when_discarded && entry.kept_when_discarded(driver))) continue;
    auto meter = entry.make(c, driver);
    if (!meter) continue;
    if (std::string(entry.name) == "latency") m.latency = static_cast<const LatencyMeter*>(meter.get());
    if (std::string(entry.name) == "cpu") m.cpu = static_cast<const CpuMeter*>(meter.get());
    m.list.push_back(std::move(meter));
  }
  return m;
}

Status begin_meters(const SampleContext& c, SampleMeters* meters) {
  for (size_t i = 0; i < meters->list.size(); ++i)
    if (auto s = meters->list[i]->begin(c); !s) {
      meters->list.resize(i);  // end only what began
      return s;
    }
  return ok_status();
}

Status end_meters(const SampleContext& c, const std::string& label, SampleMeters* meters, SampleRow* row) {
  Status first = ok_status();
  for (auto it = meters->list.rbegin(); it != meters->list.rend(); ++it)
    if (auto s = (*it)->end(c, label, row); !s && first) first = s;
  return first;
}

}  // namespace vpnlab
