// What a test kind is, for every layer below the runner: its name, the keys it takes in a
// topology, the shape of its rows and how the plan, the summary and the report describe it.
// One entry per kind (test_kinds.cpp); the runner's driver of a kind (lab/run/test_driver.h)
// does its sample. A kind that is not built in (a test's, a future one's) comes with its
// driver, which adds its entry here.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace vpnlab {

struct TestSpec;
struct TrafficProcess;

// Where a kind's servers listen, from this port up, one per process. Not iperf3's for the
// transaction kinds: the connection of the iperf3 sample before (the plaintext check's) may
// still hold iperf3's port in TIME_WAIT.
inline constexpr int kIperfPort = 5201;
inline constexpr int kTransactionPort = 5301;

inline constexpr int kMinTransactionBytes =
    14;  // sockperf's smallest message, rr's generator until 2026-12: topologies keep it
inline constexpr int kMaxTransactionBytes = 65000;

struct TestKindTraits {
  std::string name;
  std::string hint;  // in the list of kinds an unknown one is answered with: "\"rr\" (request/response)"
  // Rows of transactions (per second, percentiles of one's time; one client, one server, no
  // iperf3 keys) rather than of a bulk transfer (Gbit/s, streams, UDP).
  bool transactions = false;
  int first_port = kIperfPort;  // its servers listen from here up, one port per process
  // size = request and response bytes (transactions only); else why size is refused.
  bool takes_size = false;
  std::string no_size;
  std::string no_iperf_keys;  // the hint when an iperf3 key is given to a transaction kind
  // The summary's and report's words: what is counted per second, what one of them is.
  std::string counted = "transactions";
  std::string one = "transaction";
  std::string method;  // the report's note under its table
  // Its rate is a result: a ratio to the baseline's and a chart (idle latency's is only
  // how many echoes came back).
  bool rate_vs_baseline = true;
  bool in_conclusion = true;  // the conclusion names its leader (idle latency: no)
  // The harness around one sample of this kind, in seconds beyond the sample's own: its
  // generator started and stopped, counters read, the proof (measured per kind by
  // bench/plan_bench.sh; lab/model/plan_time.h); and each process beyond a test's first.
  double sample_overhead_s = 0.15;
  double process_overhead_s = 0.02;
  // Of sample_overhead_s, what only a measured sample spends: the latency meter's idle round
  // trip before a bulk load. A warm-up (its meters left out) costs the rest.
  double measured_only_s = 0;
  // The plan's line for a transaction test (a throughput test's is the traffic's).
  std::function<std::string(const TestSpec&, const TrafficProcess&)> plan_line;
};

// The kind of that name; null when there is none.
const TestKindTraits* find_test_kind(const std::string& name);
// A kind the topology named (parsing refused any other).
const TestKindTraits& test_kind(const std::string& name);
// Adds a kind (its driver does: lab/run/test_driver.h). A second entry of one name replaces it.
void add_test_kind(TestKindTraits traits);
// One client, one server, no iperf3: the request/response table's tests.
inline bool is_transaction_test(const std::string& kind) { return test_kind(kind).transactions; }
// "throughput, rr, crr, latency"
std::string test_kind_names();
// "\"throughput\" (iperf3, the default), \"rr\" (request/response), ... or \"latency\" (...)"
std::string test_kind_choices();

}  // namespace vpnlab
