#include "lab/run/transaction_sample.h"

#include "lab/base/fs_util.h"
#include "lab/record/run_layout.h"
#include "lab/run/transactions.h"

namespace vpnlab {

namespace {
constexpr uint64_t kCrrHeaderBytes = 2 * 40;  // two packets each way carry at least an IPv4 + TCP header
constexpr uint64_t kEchoBytes = 20 + 8 + 56;   // IPv4 + ICMP + ping's payload (netns/latency_probe.cpp)
}

std::vector<std::string> transaction_server_argv(const SampleContext& c, const TrafficProcess& p) {
  // Not called for latency tests: the kernel answers echoes.
  const TestSpec& t = c.test->spec;
  return t.kind == TestKind::rr ? sockperf_server_argv(p.port) : crr_server_argv(c.crr_program, p.port, t.size);
}

SpawnSpec transaction_client_spec(const SampleContext& c, const std::string& label, const TrafficProcess& p, double duration_s) {
  const TestSpec& t = c.test->spec;
  const std::string address = c.plan->target_address(*c.test, p.server_index, c.session->tunnel()).str();
  SpawnSpec spec;
  spec.argv = t.kind == TestKind::rr ? sockperf_client_argv(address, p.port, t.size, duration_s)
                                     : crr_client_argv(c.crr_program, address, p.port, t.size, duration_s);
  if (p.client_cpu >= 0) spec.cpus = {p.client_cpu};
  spec.stdout_path = c.raw_dir + "/" + label + (t.kind == TestKind::rr ? kSockperfSuffix : kCrrSuffix);
  spec.stderr_path = c.log_dir + "/" + label + "-client.err";
  return spec;
}

namespace {
void expect_both_ways(const SampleContext& c, const std::string& server, uint64_t each_way, ExpectedBytes* expect, uint64_t* delivered) {
  auto vpn_of = [&](const std::string& node) { return c.plan->node(node)->vpn_node(); };
  const std::string& client = c.test->spec.client;
  (*expect)[vpn_of(client)].first += each_way;
  (*expect)[vpn_of(client)].second += each_way;
  (*expect)[vpn_of(server)].first += each_way;
  (*expect)[vpn_of(server)].second += each_way;
  *delivered += 2 * each_way;
}
}  // namespace

Status merge_transactions(const SampleContext& c, const TrafficProcess& p, const SpawnSpec& client, SampleRow* row, ExpectedBytes* expect,
                          uint64_t* delivered) {
  const TestSpec& t = c.test->spec;
  // Errors may go to stderr (vpnlab-crr's usage, a missing program's message).
  std::string text = read_file_text(client.stdout_path);
  if (t.kind == TestKind::rr) text += read_file_text(client.stderr_path);
  auto got = t.kind == TestKind::rr ? parse_sockperf(text) : parse_crr(text);
  if (!got) return got.error();
  row->tps = got->per_second();
  row->tx_p50_ms = got->p50_ms;
  row->tx_p90_ms = got->p90_ms;
  row->tx_p99_ms = got->p99_ms;
  row->tx_p999_ms = got->p999_ms;
  row->gbps = 2.0 * t.size * 8 * row->tps / 1e9;
  row->cpu_s_per_gbit = 0;  // a transaction's cost is CPU per transaction (results: cpu_s / (tps * duration))
  row->retransmits = -1;
  // Over the whole sample, not sockperf's measured part: the counters run the whole time.
  const uint64_t each_way = static_cast<uint64_t>(got->transactions) * (t.size + (t.kind == TestKind::crr ? kCrrHeaderBytes : 0));
  expect_both_ways(c, p.server, each_way, expect, delivered);
  return ok_status();
}

void idle_latency_into(const LatencyProbe::Summary& echoes, double duration_s, SampleRow* row) {
  row->tps = duration_s > 0 ? echoes.answered / duration_s : 0;
  row->tx_p50_ms = echoes.p50_ms;
  row->tx_p90_ms = LatencyProbe::quantile(echoes.rtts_ms, 0.90);
  row->tx_p99_ms = echoes.p99_ms;
  row->tx_p999_ms = LatencyProbe::quantile(echoes.rtts_ms, 0.999);
  row->retransmits = -1;
}

Status expect_echoes(const SampleContext& c, const SampleRow& row, ExpectedBytes* expect, uint64_t* delivered) {
  if (row.latency_probes == 0) return make_error("no echo was answered");
  expect_both_ways(c, c.test->spec.servers.front(), static_cast<uint64_t>(row.latency_probes) * kEchoBytes, expect, delivered);
  return ok_status();
}

}  // namespace vpnlab
