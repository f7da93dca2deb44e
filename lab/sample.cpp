// One iperf3 sample on a running product, and the checks that make its row valid.
#include "lab/sample.h"

#include <ctime>

#include "lab/cpu_stat.h"
#include "lab/fs_util.h"
#include "lab/interrupt.h"
#include "lab/iperf.h"
#include "lab/process.h"
#include "netns/fault.h"
#include "netns/payload_watch.h"
#include "netns/pidfd.h"
#include "netns/probes.h"

namespace vpnlab {

namespace {

std::string now_iso() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

// What a row says about its sample before it ran: which product, test and shape. It
// starts out failed; only a finished, checked sample turns it "ok".
SampleRow row_for(const Plan& plan, const PlanTest& test, const ProductSpec& spec, double duration_s) {
  const TestSpec& t = test.spec;
  SampleRow row;
  row.run_id = plan.run_id;
  row.timestamp = now_iso();
  row.product = spec.name;
  row.test = t.name;
  row.direction = t.reverse ? "reverse" : "forward";
  row.client = t.client;
  row.server = t.servers[0];
  row.streams = t.streams;
  row.reverse = t.reverse;
  row.mss = t.mss.value_or(0);
  row.duration_s = duration_s;
  row.status = "failed";
  row.cipher = spec.cipher;
  return row;
}

SampleRow run_sample(const SampleContext& c, const std::string& label, double duration_s, bool* interrupted) {
  const Plan& plan = *c.plan;
  const TestSpec& t = c.test->spec;
  SampleRow row = row_for(plan, *c.test, *c.spec, duration_s);
  row.bringup_s = c.session->bringup_seconds();
  auto fail = [&](const std::string& why) {
    row.reason = why;
    return row;
  };

  // A product whose daemon is already gone cannot be measured: say so, not a side effect.
  if (auto d = c.session->check_daemons(); !d) return fail("product daemon died: " + d.error().message);

  const PlanNode& server_node = *plan.node(row.server);
  const PlanNode& client_node = *plan.node(row.client);
  Netns& server_ns = c.topo->ns_of_node(row.server);
  Netns& client_ns = c.topo->ns_of_node(row.client);

  SpawnSpec server;
  server.argv = iperf_server_argv(kIperfPort);
  server.netns_fd = server_ns.fd.get();
  server.cpus = server_node.load_cpus;
  server.stdout_path = c.log_dir + "/" + label + "-server.log";
  auto srv = Child::spawn(server);
  if (!srv) return fail(srv.error().message);
  if (auto s = wait_tcp_listening(server_ns.fd.get(), kIperfPort, 5, c.interrupt_fd); !s) {
    *interrupted = interrupt_signal() != 0;
    return fail(s.error().message + " " + log_tail(server.stdout_path, 3));
  }
  auto before = c.session->read_counters(row.client);
  if (!before) return fail(before.error().message);

  SpawnSpec client;
  IperfClientOptions o;
  o.server_address = c.session->target_address(*c.test).str();
  o.duration_s = duration_s;
  o.streams = t.streams;
  o.reverse = t.reverse;
  o.mss = t.mss;
  o.repeating_payload = c.repeating_payload;
  client.argv = iperf_client_argv(o);
  client.netns_fd = client_ns.fd.get();
  client.cpus = client_node.load_cpus;
  client.stdout_path = c.raw_dir + "/" + label + ".json";
  client.stderr_path = c.log_dir + "/" + label + "-client.err";
  fault_point("mid-sample");
  CpuTimes cpu_before = read_cpu_times();
  auto cl = Child::spawn(client);
  if (!cl) return fail(cl.error().message);
  // The client ends the sample, unless an interrupt, a product daemon's death (the
  // tunnel is gone: TCP would only stall) or the time limit comes first.
  std::vector<int> events = {(*cl)->pidfd()};
  if (c.interrupt_fd >= 0) events.push_back(c.interrupt_fd);
  size_t first_daemon = events.size();
  for (int fd : c.session->daemon_pidfds()) events.push_back(fd);
  int limit_s = static_cast<int>(duration_s) + 20;
  int which = wait_any(events, limit_s * 1000);
  CpuTimes cpu = read_cpu_times() - cpu_before;
  if (which != 0) {
    (*cl)->stop(1000);
    if (which < 0) return fail("iperf3 client did not finish within " + std::to_string(limit_s) + " s");
    if (static_cast<size_t>(which) < first_daemon) {
      *interrupted = true;
      return fail("interrupted");
    }
    auto d = c.session->check_daemons();
    return fail("product daemon died during the sample: " + (d ? std::string("it exited") : d.error().message));
  }
  (*cl)->wait_exit(0);
  if (!(*srv)->wait_exit(5000)) (*srv)->stop(1000);
  auto sample = parse_iperf_json(read_file_text(client.stdout_path));
  if (!sample) return fail(sample.error().message);
  row.gbps = sample->gbps;
  row.retransmits = sample->retransmits;
  row.cpu_s = cpu.busy();
  row.cpu_user_s = cpu.user + cpu.nice;
  row.cpu_sys_s = cpu.system + cpu.irq;
  row.cpu_softirq_s = cpu.softirq;
  row.steal_s = cpu.steal;
  double gbit = sample->gbps * sample->seconds;
  row.cpu_s_per_gbit = gbit > 0 ? row.cpu_s / gbit : 0;
  auto after = c.session->read_counters(row.client);
  if (!after) return fail(after.error().message);
  if (auto d = c.session->check_daemons(); !d) return fail("product daemon died during the sample: " + d.error().message);
  TunnelCounters delta;
  delta.if_rx = after->if_rx - before->if_rx;
  delta.if_tx = after->if_tx - before->if_tx;
  delta.underlay_rx = after->underlay_rx - before->underlay_rx;
  delta.underlay_tx = after->underlay_tx - before->underlay_tx;
  delta.has_product = after->has_product;
  delta.product_rx = after->product_rx - before->product_rx;
  delta.product_tx = after->product_tx - before->product_tx;
  row.reason = tunnel_check(c.spec->tunnel, t.reverse, sample->bytes_received, delta);
  if (row.reason.empty() && c.port_bytes_out) *c.port_bytes_out = sample->bytes_received;
  row.valid = row.reason.empty();
  row.status = "ok";
  if (!c.spec->tunnel) row.reason = "no tunnel (baseline)";
  return row;
}

// Once per product: a short sample with iperf3's repeating payload while the client's
// underlay interface is watched for that payload in clear. An encrypted tunnel must not
// show it; the baseline must (or the watch itself is blind). Returns "" when as expected.
std::string plaintext_check(SampleContext c, bool* interrupted) {
  const PlanTest& test = *c.test;
  Netns& client_ns = c.topo->ns_of_node(test.spec.client);
  std::string ifname;
  for (const auto& u : c.plan->node(test.spec.client)->underlay)
    if (u.link == test.underlay_link) ifname = u.ifname;
  auto index = link_index(client_ns.sock.get(), ifname);
  if (!index) return "plaintext check: " + index.error().message;
  int port = c.session->underlay_port();
  auto watch = PayloadWatch::start(client_ns.fd.get(), *index, iperf_repeating_pattern(), port);
  if (!watch) return "plaintext check: " + watch.error().message;
  c.repeating_payload = true;
  uint64_t delivered = 0;
  c.port_bytes_out = &delivered;
  SampleRow row = run_sample(c, "plaintext-check", 1, interrupted);
  PayloadWatch::Summary seen = (*watch)->stop();
  if (row.status != "ok") return "plaintext check: the sample failed: " + row.reason;
  std::string frames = std::to_string(seen.frames) + " frames on " + ifname + " watched, " + std::to_string(seen.drops) + " not captured";
  if (c.spec->tunnel && seen.pattern_seen) return "plaintext of the payload seen on the underlay (" + frames + ")";
  // Each row proves with exact counters that the underlay carried at least iperf3's bytes;
  // the watch (which may miss frames under load) proves those bytes used the product's port.
  if (c.spec->tunnel && (delivered == 0 || seen.ipv4_bytes == 0 || seen.port_bytes < seen.ipv4_bytes * 99 / 100))
    return "only " + std::to_string(seen.port_bytes) + " of " + std::to_string(seen.ipv4_bytes) + " IPv4 bytes on the underlay used port " +
           std::to_string(port) + " (" + frames + ")";
  if (!c.spec->tunnel && !seen.pattern_seen) return "plaintext check is blind: no payload seen on the baseline (" + frames + ")";
  return "";
}


std::string tunnel_check(bool tunnel, bool reverse, uint64_t iperf_bytes, const TunnelCounters& d) {
  if (!tunnel) return "";
  if (iperf_bytes == 0) return "iperf3 moved no data";
  // The client sends on forward tests and receives on reverse ones.
  auto check = [&](uint64_t rx, uint64_t tx, const std::string& what) -> std::string {
    uint64_t bytes = reverse ? rx : tx;
    if (bytes >= iperf_bytes) return "";
    return what + " carried " + std::to_string(bytes) + " bytes, less than iperf3's " + std::to_string(iperf_bytes);
  };
  if (auto r = check(d.if_rx, d.if_tx, "the overlay interface"); !r.empty()) return r + ": traffic did not cross the tunnel";
  if (auto r = check(d.underlay_rx, d.underlay_tx, "the underlay interface"); !r.empty()) return r + ": the tunnel's packets went elsewhere";
  if (d.has_product)
    if (auto r = check(d.product_rx, d.product_tx, "the product's peer counters"); !r.empty()) return r;
  return "";
}

}  // namespace vpnlab
