#include "lab/model/test_kinds.h"

#include <deque>
#include <mutex>

#include "lab/model/topology.h"
#include "lab/model/traffic.h"

namespace vpnlab {

namespace {

std::string at_cpu(const std::string& node, int cpu) { return node + (cpu >= 0 ? "@cpu" + std::to_string(cpu) : ""); }

// "  NAME: rr, a -> b, TCP, 64-byte request and response on one connection" and the
// generator's process line.
std::string connection_line(const TestSpec& s, const TrafficProcess& p, const char* per, const char* tool) {
  return "  " + s.name + ": " + s.kind + ", " + s.client + " -> " + s.servers[0] + ", TCP, " + std::to_string(s.size) +
         "-byte request and response " + per + "\n    " + tool + " " + at_cpu(p.client, p.client_cpu) + " -> " +
         at_cpu(p.server, p.server_cpu) + ":" + std::to_string(p.port) + "\n";
}

std::deque<TestKindTraits> builtin_kinds() {
  TestKindTraits throughput;
  throughput.name = "throughput";
  throughput.hint = "\"throughput\" (iperf3, the default)";
  throughput.no_size = "'size' is the request/response size of an rr or crr test";
  throughput.measured_only_s = 0.1;  // lab/run/sample_meters.cpp kIdleWindowMs

  TestKindTraits rr;
  rr.name = "rr";
  rr.hint = "\"rr\" (request/response)";
  rr.transactions = rr.takes_size = true;
  rr.first_port = kTransactionPort;
  rr.no_iperf_keys =
      "drop it: an rr test runs one TCP connection at a time (size = ... sets the request/response bytes)";
  rr.method =
      "vpnlab-crr over one TCP connection: request, response, the next request; percentiles of whole round trips.";
  rr.plan_line = [](const TestSpec& s, const TrafficProcess& p) {
    return connection_line(s, p, "on one connection", "vpnlab-crr rr");
  };
  // Was 2.35 s with sockperf, whose client sleeps 2 s after it connects (3.7, no option).
  rr.sample_overhead_s = 0.1;

  TestKindTraits crr = rr;
  crr.name = "crr";
  crr.hint = "\"crr\" (a connection per request)";
  crr.no_iperf_keys =
      "drop it: a crr test runs one TCP connection at a time (size = ... sets the request/response bytes)";
  crr.counted = "connections";
  crr.method = "vpnlab-crr: connect, request, response, close; percentiles from connect to the response.";
  crr.plan_line = [](const TestSpec& s, const TrafficProcess& p) {
    return connection_line(s, p, "on a new connection each", "vpnlab-crr");
  };
  crr.sample_overhead_s = 0.1;

  TestKindTraits latency;
  latency.name = "latency";
  latency.hint = "\"latency\" (idle round trips)";
  latency.transactions = true;
  latency.first_port = kTransactionPort;
  latency.no_size = "a latency test sends ping's 56-byte echoes";
  latency.no_iperf_keys = "drop it: a latency test sends echoes and nothing else";
  latency.counted = "answered echoes";
  latency.one = "round trip";
  latency.method = "ICMP echoes every 10 ms through the tunnel with nothing else running: the idle round trip.";
  latency.rate_vs_baseline = latency.in_conclusion = false;
  latency.sample_overhead_s = 0.05;  // no process: the probe runs in vpnlab
  latency.plan_line = [](const TestSpec& s, const TrafficProcess&) {
    return "  " + s.name + ": latency, " + s.client + " -> " + s.servers[0] + ", ICMP echoes every 10 ms, no load\n";
  };
  return {throughput, rr, crr, latency};
}

// In the order kinds were added: the built-in ones first, as the hint lists them.
struct Registry {
  std::mutex mu;
  std::deque<TestKindTraits> kinds = builtin_kinds();  // a deque: entries stay where they are as kinds are added
};
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const TestKindTraits* find_test_kind(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& k : r.kinds)
    if (k.name == name) return &k;
  return nullptr;
}

const TestKindTraits& test_kind(const std::string& name) {
  const TestKindTraits* k = find_test_kind(name);
  return k ? *k : *find_test_kind("throughput");
}

void add_test_kind(TestKindTraits traits) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& k : r.kinds)
    if (k.name == traits.name) {
      k = std::move(traits);
      return;
    }
  r.kinds.push_back(std::move(traits));
}

std::string test_kind_names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string out;
  for (const auto& k : r.kinds) out += (out.empty() ? "" : ", ") + k.name;
  return out;
}

std::string test_kind_choices() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string out;
  for (size_t i = 0; i < r.kinds.size(); ++i)
    out += (i == 0 ? "" : i + 1 == r.kinds.size() ? " or " : ", ") + r.kinds[i].hint;
  return out;
}

}  // namespace vpnlab
