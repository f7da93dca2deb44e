// What a sample measures beside its traffic, each a meter: begun just before the clients
// start (in list order) and ended just after they finish (in reverse order, so the CPU
// window is the tightest), each filling its columns of the row and its raw files. A new
// per-sample measurement is one meter here and its line in sample_meters().
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lab/run/sample.h"
#include "lab/run/test_driver.h"

namespace vpnlab {

class SampleMeter {
 public:
  virtual ~SampleMeter() = default;
  virtual Status begin(const SampleContext& c) = 0;
  // `label` names the sample's raw files (c.raw_dir/label + a suffix).
  virtual Status end(const SampleContext& c, const std::string& label, SampleRow* row) = 0;
};

// The latency probe's summary once ended (nullptr while running or without one): the
// test driver merges it into its own figures.
class LatencyMeter;
const LatencyProbe::Summary* latency_summary(const LatencyMeter* meter);

// The share of the machines' CPU time the hypervisor took during the sample (0 without a
// CPU meter), and whether that disturbed it: above kMaxStealShare a CPU-bound tunnel loses
// about twice that share of its throughput (a quick run here: 36 % steal, the baseline at
// 5.7 Gbit/s against its median 10.2), so the sample measured the host's other guests as
// much as the product. Its row stays valid with this reason (kDisturbedPrefix): the summary
// warns, and adaptive sampling leaves its round out.
class CpuMeter;
double steal_share(const CpuMeter* meter);
// "" at or under kMaxStealShare, else the row's reason.
std::string steal_verdict(double share);

struct SampleMeters {
  std::vector<std::unique_ptr<SampleMeter>> list;
  const LatencyMeter* latency = nullptr;
  const CpuMeter* cpu = nullptr;
};

// The meters of one sample of `driver`'s kind: daemon usage, relays' usage, the latency
// probe (where the test has echoes and this is not the plaintext check), the variant's rule
// counters, CPU time, daemon memory over time; none named in c.meters_off, and in a discarded
// sample only those its row or its test needs.
SampleMeters sample_meters(const SampleContext& c, const TestDriver& driver);
// Every meter's name, in begin order ("daemon-usage", "relay", "latency", "rules", "cpu", "rss").
std::vector<std::string> meter_names();
// The seconds the latency meter spent on the idle round trip before `row`'s load (one window
// per sample, a zero-loss search's included); 0 where it measured none.
double idle_window_s(const SampleRow& row);

// Begins each meter in order; on a failure, the meters begun so far are dropped.
Status begin_meters(const SampleContext& c, SampleMeters* meters);
// Ends each meter in reverse order; the first failure is returned after all have ended.
Status end_meters(const SampleContext& c, const std::string& label, SampleMeters* meters, SampleRow* row);

}  // namespace vpnlab
