// The transaction kinds: rr (vpnlab-crr over one TCP connection), crr (vpnlab-crr:
// a connection per request) and idle latency (ICMP echoes, the kernel answers). One client,
// one server; the row gets transactions/s and their percentiles.
#include "lab/base/fs_util.h"
#include "lab/record/run_layout.h"
#include "lab/run/test_driver.h"
#include "lab/run/transactions.h"

namespace vpnlab {

namespace {

constexpr uint64_t kCrrHeaderBytes = 2 * 40;  // two packets each way carry at least an IPv4 + TCP header
constexpr uint64_t kEchoBytes = 20 + 8 + 56;  // IPv4 + ICMP + ping's payload (lab/kernel/latency_probe.cpp)

void expect_both_ways(const SampleContext& c, const std::string& server, uint64_t each_way, ExpectedBytes* expect,
                      uint64_t* delivered) {
  auto vpn_of = [&](const std::string& node) { return c.plan->node(node)->vpn_node(); };
  const std::string& client = c.test->spec.client;
  (*expect)[vpn_of(client)].first += each_way;
  (*expect)[vpn_of(client)].second += each_way;
  (*expect)[vpn_of(server)].first += each_way;
  (*expect)[vpn_of(server)].second += each_way;
  *delivered += 2 * each_way;
}

// rr and crr: a generator's client and server; transactions/s and their percentiles into the
// row, with the payload both ways as its Gbit/s (so `diff` and `compare` ratios are
// transaction-rate ratios); per VPN node the bytes the tunnel must have carried at least:
// each transaction's request and response, and for crr the 40-byte minimum TCP/IP header of
// two packets each way besides.
class ConnectionDriver : public TestDriver {
 public:
  explicit ConnectionDriver(bool new_connection_each) : crr_(new_connection_each) {}
  std::string kind() const override { return crr_ ? "crr" : "rr"; }
  bool with_echoes() const override { return false; }  // a latency test of its own: no echoes beside it
  bool server_exits_after_client() const override { return false; }
  // One connection at a time; request and response of `size` bytes each.
  void shape_row(const Plan&, const TestSpec& t, SampleRow* row) const override {
    row->kind = kind();
    row->streams = 1;
    row->payload_bytes = t.size;
  }
  std::vector<std::string> server_argv(const SampleContext& c, const TrafficProcess& p) const override {
    return crr_server_argv(c.crr_program, p.port, c.test->spec.size, !crr_);
  }
  std::vector<SpawnSpec> client_specs(const SampleContext& c, const std::string& label,
                                      const std::vector<TrafficProcess>& procs, double duration_s) const override {
    const TestSpec& t = c.test->spec;
    const TrafficProcess& p = procs.front();
    const std::string address = c.plan->target_address(*c.test, p.server_index, c.session->tunnel()).str();
    SpawnSpec spec;
    spec.argv = crr_client_argv(c.crr_program, address, p.port, t.size, duration_s, !crr_);
    if (p.client_cpu >= 0) spec.cpus = {p.client_cpu};
    spec.stdout_path = c.raw_dir + "/" + label + (crr_ ? kCrrSuffix : kRrSuffix);
    spec.stderr_path = c.log_dir + "/" + label + "-client.err";
    return {spec};
  }
  Status merge(const SampleContext& c, const SampleOutput& out, SampleRow* row, ExpectedBytes* expect,
               uint64_t* delivered) const override {
    const TestSpec& t = c.test->spec;
    const SpawnSpec& client = out.clients.front();
    auto got = parse_crr(read_file_text(client.stdout_path));
    if (!got) return got.error();
    row->tps = got->per_second();
    row->tx_p50_ms = got->p50_ms;
    row->tx_p90_ms = got->p90_ms;
    row->tx_p99_ms = got->p99_ms;
    row->tx_p999_ms = got->p999_ms;
    row->gbps = 2.0 * t.size * 8 * row->tps / 1e9;
    row->cpu_s_per_gbit = 0;  // a transaction's cost is CPU per transaction (results: cpu_s / (tps * duration))
    row->retransmits = -1;
    const uint64_t each_way = static_cast<uint64_t>(got->transactions) * (t.size + (crr_ ? kCrrHeaderBytes : 0));
    expect_both_ways(c, out.procs.front().server, each_way, expect, delivered);
    return ok_status();
  }

 private:
  bool crr_;
};

// Idle latency: its echoes are its transactions (answered per second, the round trips'
// percentiles), and each answered one crossed the tunnel both ways (84 bytes: IPv4, ICMP
// and ping's 56-byte payload). No server, no client process: the probe over the sample's time.
class IdleLatencyDriver : public TestDriver {
 public:
  std::string kind() const override { return "latency"; }
  bool with_echoes() const override { return true; }
  void shape_row(const Plan&, const TestSpec&, SampleRow* row) const override {
    row->kind = kind();
    row->streams = 1;
  }
  std::vector<std::string> server_argv(const SampleContext&, const TrafficProcess&) const override { return {}; }
  std::vector<SpawnSpec> client_specs(const SampleContext&, const std::string&, const std::vector<TrafficProcess>&,
                                      double) const override {
    return {};
  }
  Status merge(const SampleContext& c, const SampleOutput& out, SampleRow* row, ExpectedBytes* expect,
               uint64_t* delivered) const override {
    if (out.echoes) {
      const LatencyProbe::Summary& echoes = *out.echoes;
      row->tps = out.duration_s > 0 ? echoes.answered / out.duration_s : 0;
      row->tx_p50_ms = echoes.p50_ms;
      row->tx_p90_ms = LatencyProbe::quantile(echoes.rtts_ms, 0.90);
      row->tx_p99_ms = echoes.p99_ms;
      row->tx_p999_ms = LatencyProbe::quantile(echoes.rtts_ms, 0.999);
      row->retransmits = -1;
    }
    if (row->latency_probes == 0) return make_error("no echo was answered");
    expect_both_ways(c, c.test->spec.servers.front(), static_cast<uint64_t>(row->latency_probes) * kEchoBytes, expect,
                     delivered);
    return ok_status();
  }
};

}  // namespace

std::vector<std::unique_ptr<TestDriver>> make_transaction_drivers() {
  std::vector<std::unique_ptr<TestDriver>> out;
  out.push_back(std::make_unique<ConnectionDriver>(false));
  out.push_back(std::make_unique<ConnectionDriver>(true));
  out.push_back(std::make_unique<IdleLatencyDriver>());
  return out;
}

}  // namespace vpnlab
