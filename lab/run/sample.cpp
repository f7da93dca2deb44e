// One sample on a running product. A test's iperf3 processes (expand_traffic) start
// together, each pinned to one load CPU; each runs exactly the sample's duration, and
// the sample is their sum. The lab's window is "all processes running": their starts
// are recorded and a sample whose starts spread over more than 2 % of the duration is
// not valid (iperf3's own start stamps have 1 s resolution, too coarse to align them).
#include "lab/run/sample.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <map>

#include "lab/base/cpu_stat.h"
#include "lab/base/fault.h"
#include "lab/base/fs_util.h"
#include "lab/base/pidfd.h"
#include "lab/base/process.h"
#include "lab/base/utc_time.h"
#include "lab/model/sweep.h"
#include "lab/model/traffic.h"
#include "lab/record/run_layout.h"
#include "lab/run/interrupt.h"
#include "lab/run/iperf.h"
#include "lab/run/sample_meters.h"
#include "lab/run/test_driver.h"
#include "lab/run/variant.h"
#include "lab/run/zero_loss.h"

namespace vpnlab {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

SampleRow row_for(const Plan& plan, const PlanTest& test, const ProductSpec& spec, double duration_s) {
  const TestSpec& t = test.spec;
  SampleRow row;
  row.run_id = plan.run_id;
  row.timestamp = utc_now();
  row.product = spec.name;
  row.test = t.name;
  row.pattern = traffic_pattern(t);
  row.direction = traffic_direction(t);
  row.protocol = "tcp";  // a kind that sends UDP says so (shape_row)
  row.client = t.client;
  for (size_t i = 0; i < t.servers.size(); ++i) row.server += (i ? ";" : "") + t.servers[i];
  row.duration_s = duration_s;
  // The kind's part: streams, sizes, rates (a kind without a driver fails its sample).
  if (const TestDriver* driver = find_test_driver(t.kind)) driver->shape_row(plan, t, &row);
  row.sweep_of = t.sweep_of;
  row.point = point_text(t.point);
  row.status = "failed";
  row.cipher = spec.cipher;
  row.hops = plan.hops_crossed(plan.node(t.client)->vpn_node(), plan.node(t.servers.front())->vpn_node());
  return row;
}

namespace {

// Phase 1: one server per process (iperf3's, a generator's; none where the kernel answers),
// each listening before the next starts.
Status start_servers(const SampleContext& c, const TestDriver& driver, const std::string& label,
                     const std::vector<TrafficProcess>& procs, std::vector<std::unique_ptr<NodeProcess>>* servers,
                     bool* interrupted) {
  for (size_t i = 0; i < procs.size(); ++i) {
    SpawnSpec server;
    server.argv = driver.server_argv(c, procs[i]);
    if (server.argv.empty()) break;
    if (procs[i].server_cpu >= 0) server.cpus = {procs[i].server_cpu};
    server.stdout_path = c.log_dir + "/" + process_label(label, i, procs.size()) + "-server.log";
    auto srv = c.nodes->spawn(procs[i].server, server, false);
    if (!srv) return srv.error();
    servers->push_back(std::move(srv.value()));
    if (auto s = c.nodes->wait_tcp_listening(procs[i].server, procs[i].port, 5, c.interrupt_fd); !s) {
      *interrupted = interrupt_signal() != 0;
      return make_error(s.error().message + " " + log_tail(server.stdout_path, 3));
    }
  }
  return ok_status();
}

// Phase 2: the clients, started together; returns how far apart their starts were. The
// clients end the sample, unless an interrupt, a product daemon's death (the tunnel is
// gone: TCP would only stall) or the time limit comes first.
Result<double> run_clients(const SampleContext& c, const std::vector<SpawnSpec>& specs, double duration_s,
                           bool* interrupted) {
  std::vector<std::unique_ptr<NodeProcess>> clients;
  // The spread is from the first process's start to the last one's: a launch that takes
  // long by itself (a guest's agent round trip) delays all alike and is no spread.
  Clock::time_point first_start, last_start;
  for (const auto& spec : specs) {
    auto cl = c.nodes->spawn(c.test->spec.client, spec, false);
    if (!cl) return cl.error();
    last_start = Clock::now();
    if (clients.empty()) first_start = last_start;
    clients.push_back(std::move(cl.value()));
  }
  double start_spread_ms = std::chrono::duration<double, std::milli>(last_start - first_start).count();
  // No client (a latency test): the sample is its duration, still cut by an interrupt or
  // a daemon's death.
  const bool idle = specs.empty();
  int64_t limit_ms = idle ? std::llround(duration_s * 1000) : (static_cast<int64_t>(duration_s) + 20) * 1000;
  auto deadline = Clock::now() + std::chrono::milliseconds(limit_ms);
  std::vector<bool> done(clients.size(), false);
  for (size_t left = idle ? 1 : clients.size(); left > 0;) {
    std::vector<int> events;
    std::vector<size_t> which_client;
    for (size_t i = 0; i < clients.size(); ++i)
      if (!done[i]) events.push_back(clients[i]->exit_fd()), which_client.push_back(i);
    size_t first_other = events.size();
    if (c.interrupt_fd >= 0) events.push_back(c.interrupt_fd);
    size_t first_daemon = events.size();
    for (int fd : c.session->daemon_pidfds()) events.push_back(fd);
    int remaining =
        static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    int which = wait_any(events, std::max(remaining, 0));
    if (which >= 0 && static_cast<size_t>(which) < first_other) {
      clients[which_client[which]]->wait_exit(0);
      done[which_client[which]] = true;
      --left;
      continue;
    }
    if (idle && which < 0) return 0.0;
    for (auto& cl : clients) cl->stop(1000);
    if (which < 0)
      return make_error("the test's clients did not finish within " + std::to_string(limit_ms / 1000) + " s");
    if (static_cast<size_t>(which) < first_daemon) {
      *interrupted = true;
      return make_error("interrupted");
    }
    auto d = c.session->check_daemons();
    return make_error("product daemon died during the sample: " + (d ? std::string("it exited") : d.error().message));
  }
  return start_spread_ms;
}

}  // namespace

std::string score_sample(const SampleScore& s) {
  for (const auto& [node, sent_received] : s.expect) {
    auto delta = s.delta.find(node);
    std::string why = delta == s.delta.end() ? std::string("no counters")
                      : s.tunnel && s.relays.count(node)
                          ? relay_check(sent_received.first, sent_received.second, delta->second)
                          : tunnel_check(s.tunnel, sent_received.first, sent_received.second, delta->second);
    if (!why.empty()) return "VPN node '" + node + "': " + why;
  }
  // Starts more than 2 % of the duration (at least 50 ms: forking a few processes on a
  // busy 2-CPU machine takes 10-25 ms) apart do not make one window. Not a measurement,
  // the plaintext check needs no window.
  if (!s.repeating_payload && s.start_spread_ms > std::max(s.duration_s * 20, 50.0))
    return "the iperf3 processes started " + std::to_string(static_cast<int>(s.start_spread_ms)) +
           " ms apart: their sum is not one window";
  return "";
}

namespace {

// Where the test's tunnels count its traffic (each VPN node crossed, or every hop's two
// ends on a chain), with their counters before the sample.
struct CountedPoints {
  std::vector<ProductTunnels::Point> points;
  std::map<std::string, TunnelCounters> before;
};

Result<CountedPoints> read_points_before(const SampleContext& c, const std::vector<TrafficProcess>& procs) {
  CountedPoints out;
  auto vpn_of = [&](const std::string& node) { return c.plan->node(node)->vpn_node(); };
  for (const auto& p : procs)
    for (auto& point : c.session->points(vpn_of(c.test->spec.client), vpn_of(p.server))) {
      if (out.before.count(point.key)) continue;
      auto r = c.session->read_counters(point);
      if (!r) return r.error();
      out.before[point.key] = r.value();
      out.points.push_back(std::move(point));
    }
  return out;
}

// Each point must carry its side's share: the counters' change goes into the score, and
// the packets the receiving sides took in into pps and wire_pps (a relay's hops carry the
// same packets again, so only the edges count).
Status score_points(const SampleContext& c, const CountedPoints& counted, const ExpectedBytes& by_node,
                    double duration_s, SampleScore* score, SampleRow* row) {
  uint64_t rx_packets = 0;
  double wire_frames = 0;
  const int link_mtu = c.plan->link_mtu(c.test->underlay_link());
  for (const auto& point : counted.points) {
    auto it = by_node.find(point.side);
    if (it == by_node.end()) continue;
    const auto& sent_received = it->second;
    score->expect[point.key] = sent_received;
    if (point.relay) score->relays.insert(point.key);
    auto after = c.session->read_counters(point);
    if (!after) return after.error();
    TunnelCounters delta = after.value() - counted.before.at(point.key);
    score->delta[point.key] = delta;
    if (sent_received.second > 0 && point.edge) {
      rx_packets += score->tunnel ? delta.if_rx_packets : delta.underlay_rx_packets;
      double by_size = link_mtu > 0 ? static_cast<double>(delta.underlay_rx) / (link_mtu + 14) : 0;
      wire_frames += std::max(static_cast<double>(delta.underlay_rx_packets), by_size);
    }
  }
  row->pps = static_cast<double>(rx_packets) / duration_s;
  row->wire_pps = wire_frames / duration_s;
  return ok_status();
}

}  // namespace

SampleRow run_sample(const SampleContext& c, const std::string& label, double duration_s, bool* interrupted) {
  const Plan& plan = *c.plan;
  const TestSpec& t = c.test->spec;
  const bool tunnel = c.session->tunnel();
  if (t.zero_loss && !c.repeating_payload) return run_zero_loss_search(c, label, duration_s, interrupted);
  SampleRow row = row_for(plan, *c.test, *c.spec, duration_s);
  row.bringup_s = c.session->bringup_seconds();
  auto fail = [&](const std::string& why) {
    // A lost machine explains whatever failed after it went: the row names it, not the
    // product (the product's own messages would blame the product: "clients did not finish").
    const std::string lost = c.nodes->lost();
    row.reason = lost.empty() ? why : lost;
    return row;
  };
  // A product whose daemon is already gone cannot be measured: say so, not a side effect.
  if (auto d = c.session->check_daemons(); !d) return fail("product daemon died: " + d.error().message);
  if (auto p = c.session->repin_daemons(); !p) return fail(p.error().message);
  const TestDriver* driver = find_test_driver(t.kind);
  if (!driver) return fail("no driver runs tests of kind '" + t.kind + "'");

  std::vector<TrafficProcess> procs = expand_traffic(plan, *c.test, test_kind(t.kind).first_port);
  row.processes = static_cast<int>(procs.size());
  std::vector<std::unique_ptr<NodeProcess>> servers;
  if (auto s = start_servers(c, *driver, label, procs, &servers, interrupted); !s) return fail(s.error().message);
  auto counted = read_points_before(c, procs);
  if (!counted) return fail(counted.error().message);
  // The machine should be idle before a sample starts: wait a little for it, then record
  // whatever still runs outside the lab.
  row.outside_load = c.nodes->wait_outside_idle(500);
  SampleMeters meters = sample_meters(c, *driver);
  std::vector<SpawnSpec> specs = driver->client_specs(c, label, procs, duration_s);
  if (auto s = begin_meters(c, &meters); !s) return fail(s.error().message);
  fault_point("mid-sample");
  auto spread = run_clients(c, specs, duration_s, interrupted);
  if (spread && c.load_seconds_out) *c.load_seconds_out += duration_s;
  Status metered = end_meters(c, label, &meters, &row);
  if (!spread) return fail(spread.error().message);
  if (!metered) return fail(metered.error().message);
  for (auto& srv : servers)
    if (!driver->server_exits_after_client() || !srv->wait_exit(5000)) srv->stop(1000);

  SampleScore score{tunnel, c.repeating_payload, duration_s, *spread, {}, {}};
  uint64_t delivered = 0;
  ExpectedBytes by_node;
  if (auto s = driver->merge(c, SampleOutput{procs, specs, latency_summary(meters.latency), duration_s}, &row, &by_node,
                             &delivered);
      !s)
    return fail(s.error().message);
  if (auto d = c.session->check_daemons(); !d)
    return fail("product daemon died during the sample: " + d.error().message);
  if (auto s = score_points(c, *counted, by_node, duration_s, &score, &row); !s) return fail(s.error().message);
  row.reason = score_sample(score);
  if (row.reason.empty()) row.reason = variant_verdict(plan, row.rule_packets);
  // The product's own word on the path its packets took (Tailscale: direct, not relayed).
  auto vpn_of = [&](const std::string& node) { return plan.node(node)->vpn_node(); };
  if (row.reason.empty() && tunnel && !procs.empty())
    row.reason = c.session->check_path(vpn_of(t.client), vpn_of(procs.front().server));
  if (row.reason.empty() && c.port_bytes_out) *c.port_bytes_out = delivered;
  row.valid = row.reason.empty();
  row.status = "ok";
  if (!tunnel && row.valid) row.reason = "no tunnel (baseline)";
  // A sound sample the hypervisor disturbed stays valid (it crossed the tunnel) and says so.
  if (std::string disturbed = steal_verdict(steal_share(meters.cpu)); row.valid && !disturbed.empty())
    row.reason = disturbed;
  return row;
}

}  // namespace vpnlab
