// A test kind's part of a sample: its servers, its clients, whether echoes run beside them
// and what their output adds to the row. sample.cpp runs every kind through this interface
// and names none; a kind is its traits (lab/model/test_kinds.h: its keys, row shape, words
// and the ports its servers listen on) and its driver. The
// built-in ones: iperf3's throughput (iperf_driver.cpp), rr, crr and idle latency
// (transaction_drivers.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lab/base/process.h"
#include "lab/model/test_kinds.h"
#include "lab/model/traffic.h"
#include "lab/record/results_csv.h"
#include "lab/run/sample.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

// Per VPN node the bytes the sample's traffic sent and received there: the tunnel proof
// checks its counters carried at least these.
using ExpectedBytes = std::map<std::string, std::pair<uint64_t, uint64_t>>;  // VPN node -> {sent, received}

// What a finished sample left to read.
struct SampleOutput {
  const std::vector<TrafficProcess>& procs;
  const std::vector<SpawnSpec>& clients;  // as client_specs gave them (their output files)
  const LatencyProbe::Summary* echoes;    // null: no echoes ran
  double duration_s;
};

class TestDriver {
 public:
  virtual ~TestDriver() = default;
  virtual std::string kind() const = 0;
  // The server of one process; an empty argv: none (the kernel answers echoes).
  virtual std::vector<std::string> server_argv(const SampleContext& c, const TrafficProcess& p) const = 0;
  // Its client processes, started together; none: the echoes alone are its traffic.
  virtual std::vector<SpawnSpec> client_specs(const SampleContext& c, const std::string& label,
                                              const std::vector<TrafficProcess>& procs, double duration_s) const = 0;
  // Echoes run beside its traffic (latency under load), or are its traffic.
  virtual bool with_echoes() const = 0;
  // Its server exits once its client is done (iperf3 -1). One that serves until stopped
  // (vpnlab-crr) is stopped as soon as the clients end: waiting for it to exit
  // cost every rr and crr sample 5 s of nothing.
  virtual bool server_exits_after_client() const { return true; }
  // What the row says of the test before it runs, the kind's part (row_for fills the
  // rest): its streams, payload size, offered rate, kind column.
  virtual void shape_row(const Plan& plan, const TestSpec& t, SampleRow* row) const = 0;
  // What its output adds to the row; per VPN node the bytes it sent and received; the
  // bytes delivered end to end.
  virtual Status merge(const SampleContext& c, const SampleOutput& out, SampleRow* row, ExpectedBytes* expect,
                       uint64_t* delivered) const = 0;
};

// The driver of a kind; null when the kind has none.
const TestDriver* find_test_driver(const std::string& kind);
// Adds a kind: its traits for the layers below (parsing, record, summary, report) and its
// driver. A second one of a name replaces the first.
void add_test_driver(std::unique_ptr<TestDriver> driver, TestKindTraits traits);

// A sample's raw file name for process i of count ("s1-throughput-wireguard-go-p2").
std::string process_label(const std::string& label, size_t i, size_t count);

// The built-in drivers (their files).
std::unique_ptr<TestDriver> make_iperf_driver();
std::vector<std::unique_ptr<TestDriver>> make_transaction_drivers();

}  // namespace vpnlab
