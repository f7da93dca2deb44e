#include "lab/record/figures.h"

#include <fmt/format.h>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "lab/base/bounds.h"

namespace vpnlab {

std::string fixed_text(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }

namespace {

bool parse_bool(const std::string& v) {
  if (v == "true") return true;
  if (v == "false" || v.empty()) return false;
  throw std::invalid_argument(v);
}

// Whole fields only: "12abc" is not 12. Empty is 0 (a column an older version left empty).
template <typename T, typename Parse>
T whole(const std::string& s, Parse parse) {
  if (s.empty()) return 0;
  size_t used = 0;
  T v = parse(s, &used);
  if (used != s.size()) throw std::invalid_argument(s);
  return v;
}
double to_d(const std::string& s) {
  return whole<double>(s, [](const std::string& t, size_t* n) { return std::stod(t, n); });
}
// A real as results.csv carries it: the value its column's digits write. Read so, a row
// written again is the same row (fuzz_results_csv found 0.0001 CPU-s/Gbit written as "0.000",
// which read back as no figure at all). Beyond any column's bounds (refused on reading) or
// not finite, the value is left as it is.
double as_written(double v, int digits) {
  return std::isfinite(v) && std::fabs(v) < 1e15 ? std::stod(fixed_text(v, digits)) : v;
}
int64_t to_i(const std::string& s) {
  return whole<int64_t>(s, [](const std::string& t, size_t* n) { return std::stoll(t, n); });
}

// A Figure with the two optional parts set in place: F(...).in(min, max).as_metric({...}).
struct F : Figure {
  F(Figure f) : Figure(std::move(f)) {}
  F&& in(double lo, double hi) && {
    min = lo, max = hi, bounded = true;
    return std::move(*this);
  }
  F&& as_metric(MetricFacet m) && {
    metric = m;
    return std::move(*this);
  }
  F&& when(bool (*pred)(const SampleRow&)) && {
    measured = pred;
    return std::move(*this);
  }
  F&& since_version(const char* v) && {
    since = v;
    return std::move(*this);
  }
};

#define TEXT(f, unit, by, about)                                         \
  F(Figure{#f, ColumnType::text, [](const SampleRow& r) { return r.f; }, \
           [](SampleRow& r, const std::string& v) { r.f = v; }, nullptr, unit, by, about, "0.1.0"})
#define INT(f, unit, by, about)                                                                   \
  F(Figure{#f, ColumnType::integer, [](const SampleRow& r) { return std::to_string(r.f); },       \
           [](SampleRow& r, const std::string& v) { r.f = static_cast<decltype(r.f)>(to_i(v)); }, \
           [](const SampleRow& r) { return static_cast<double>(r.f); }, unit, by, about, "0.1.0"})
// An integer whose "not measured" is empty in the file (held as `none` in the row).
#define OPT_INT(f, none, unit, by, about)                                                                            \
  F(Figure{#f, ColumnType::integer,                                                                                  \
           [](const SampleRow& r) { return r.f != none ? std::to_string(r.f) : std::string(); },                     \
           [](SampleRow& r, const std::string& v) { r.f = v.empty() ? none : static_cast<decltype(r.f)>(to_i(v)); }, \
           [](const SampleRow& r) { return static_cast<double>(r.f); }, unit, by, about, "0.1.0"})
#define REAL(f, digits, unit, by, about)                                                     \
  F(Figure{#f, ColumnType::real, [](const SampleRow& r) { return fixed_text(r.f, digits); }, \
           [](SampleRow& r, const std::string& v) { r.f = as_written(to_d(v), digits); },    \
           [](const SampleRow& r) { return r.f; }, unit, by, about, "0.1.0"})
#define FLAG(f, unit, by, about)                                                                            \
  F(Figure{#f, ColumnType::boolean, [](const SampleRow& r) { return std::string(r.f ? "true" : "false"); }, \
           [](SampleRow& r, const std::string& v) { r.f = parse_bool(v); }, nullptr, unit, by, about, "0.1.0"})

bool echoed(const SampleRow& r) { return r.latency_probes > 0; }
bool brought_up(const SampleRow& r) { return r.bringup_s > 0; }
bool has_cpu_per_gbit(const SampleRow& r) { return r.cpu_s_per_gbit > 0; }
bool has_daemon(const SampleRow& r) { return r.daemon_rss_kb > 0 || r.daemon_threads > 0; }
bool is_transactional(const SampleRow& r) { return !r.kind.empty(); }
bool is_udp(const SampleRow& r) { return r.protocol == "udp"; }
bool relay_metered(const SampleRow& r) { return r.relay_rss_kb > 0; }
// A relay that carried a sample used CPU time: none at all is an agent that does not report
// it (an older one in a guest or on a host), not a free relay.
bool relay_cpu_metered(const SampleRow& r) { return r.relay_rss_kb > 0 && r.relay_cpu_s > 0; }

// Figures no machine reaches: 10^12 of any count or rate, a million CPU-seconds, a day.
constexpr double kAny = 1e12, kCpu = 1e6, kMs = kMaxAnySeconds * 1000;

}  // namespace

std::string figure_text(const Figure& f, const SampleRow& r) {
  return f.measured && !f.measured(r) ? std::string() : f.get(r);
}

namespace {

// What ran: the run, the product, the test's shape and the sample's outcome.
void add_what_ran(std::vector<Figure>* t) {
  std::vector<Figure> part = {
      TEXT(run_id, "", "all", "the run's id (its start time and a tag): the run directory's name"),
      TEXT(timestamp, "UTC", "all", "when the sample started, ISO 8601"),
      TEXT(product, "", "all", "the product as run: its folder's name, or NAME@TAG for another build"),
      TEXT(test, "", "all", "the test's name ([[bench.test]] name)"),
      TEXT(pattern, "", "all", "the traffic's shape: one-to-one, fan-out (one client, several servers), fan-in, mesh"),
      TEXT(direction, "", "all", "forward (client sends), reverse (server sends) or bidirectional"),
      TEXT(protocol, "", "all", "tcp or udp"),
      INT(sample, "", "all",
          "the sample's number from 1: its round in an interleaved run, so one number pairs the products of a round"),
      TEXT(client, "", "all", "the node that runs the test's client"),
      TEXT(server, "", "all", "the node(s) that run its servers"),
      INT(streams, "", "throughput", "parallel streams per iperf3 process (-P)").in(1, 4096),
      FLAG(reverse, "", "throughput", "iperf3 -R: the server sends"),
      OPT_INT(mss, 0, "bytes", "throughput", "TCP maximum segment size asked for (-M); empty: the kernel's")
          .in(0, 65535),
      REAL(duration_s, 1, "s", "all", "the sample's measured length (warm-up excluded)").in(0, kMaxSampleSeconds),
      REAL(gbps, 6, "Gbit/s", "all",
           "what iperf3 delivered, summed over its processes (rr, crr: the payload both ways)")
          .in(0, 1e4)
          .as_metric({0, "Gbit/s", true, "faster", "slower", false}),
      OPT_INT(retransmits, -1, "", "throughput", "TCP retransmits of the sample; empty for UDP")
          .in(-1, kAny)
          .as_metric({11, "TCP retransmits", false, "fewer", "more", false, nullptr,
                      [](const SampleRow& r) { return r.retransmits >= 0 && r.protocol != "udp"; }}),
      FLAG(valid, "", "all",
           "true when the traffic provably crossed the tunnel (counters, the product's own, the plaintext check); the "
           "baseline has no tunnel: its finished samples whose counters agree are true, with the reason 'no tunnel "
           "(baseline)'"),
      TEXT(status, "", "all", "ok (the sample finished) or failed"),
      F(Figure{"reason", ColumnType::text, [](const SampleRow& r) { return one_line(r.reason); },
               [](SampleRow& r, const std::string& v) { r.reason = v; }, nullptr, "", "all",
               "why the row is not valid or failed, on one line (the full text is in logs/)", "0.1.0"}),
      TEXT(cipher, "", "all", "the cipher the product's spec states"),
  };
  t->insert(t->end(), part.begin(), part.end());
}

// What it cost and how the machine was: bring-up, CPU, packets, memory, latency, load.
void add_costs(std::vector<Figure>* t) {
  std::vector<Figure> part = {
      REAL(bringup_s, 3, "s", "all", "from the daemons' start until every overlay ping was answered")
          .in(0, kMaxAnySeconds)
          .as_metric({10, "bring-up s", false, "quicker", "slower", false, nullptr, brought_up})
          .when(brought_up),
      REAL(cpu_s, 3, "CPU-s", "all",
           "busy CPU seconds over the sample, system-wide (all CPUs, idle and steal left out)")
          .in(0, kCpu),
      REAL(cpu_user_s, 3, "CPU-s", "all", "of cpu_s: user and nice time")
          .in(0, kCpu)
          .as_metric({7, "CPU-s user", false, "cheaper", "costlier", false}),
      REAL(cpu_sys_s, 3, "CPU-s", "all", "of cpu_s: system and irq time")
          .in(0, kCpu)
          .as_metric({8, "CPU-s sys", false, "cheaper", "costlier", false}),
      REAL(cpu_softirq_s, 3, "CPU-s", "all", "of cpu_s: softirq time (the kernel's packet work)")
          .in(0, kCpu)
          .as_metric({9, "CPU-s softirq", false, "cheaper", "costlier", false}),
      REAL(steal_s, 3, "CPU-s", "all", "time the hypervisor took from this machine's CPUs during the sample")
          .in(0, kCpu),
      REAL(cpu_s_per_gbit, 3, "CPU-s/Gbit", "all", "cpu_s over the Gbit moved: the cost of a Gbit")
          .in(0, kAny)
          .as_metric({1, "CPU-s/Gbit", false, "cheaper", "costlier", true, nullptr, has_cpu_per_gbit, "CPU-s/Gbit", 13,
                      "{:.2f}", 1, 1})
          .when(has_cpu_per_gbit),
      INT(processes, "", "all", "iperf3 (or generator) client processes the test ran").in(0, 4096),
      REAL(pps, 0, "packets/s", "all",
           "packets the receiving side's interface counted (the baseline's GRO-merged: not comparable with a tunnel's)")
          .in(0, kAny)
          .as_metric({5, "packets/s", true, "more", "fewer", false, nullptr,
                      [](const SampleRow& r) { return r.pps > 0; }, "kpps", 12, "{:.1f}", 1000, 3}),
      REAL(loss_pct, 3, "%", "udp", "UDP datagrams lost").in(0, 100).when(is_udp),
      REAL(generator_cpu_pct, 1, "% of a CPU", "all",
           "the busiest iperf3 process's CPU; 90 or more: the generator, not the product, set the pace")
          .in(0, 100 * 4096),
      INT(daemon_rss_kb, "KiB", "all", "peak resident memory of the product's daemons on the busiest node")
          .in(0, static_cast<double>(int64_t{1} << 40))
          .as_metric({2, "daemon peak RSS", false, "smaller", "larger", true, nullptr,
                      [](const SampleRow& r) { return r.daemon_rss_kb > 0; }, "RSS MB", 11, "{:.1f}", 1024, 2})
          .when(has_daemon),
      INT(daemon_threads, "", "all", "OS threads of the product's daemons on the busiest node")
          .in(0, 1 << 22)
          .when(has_daemon),
      REAL(latency_p50_ms, 3, "ms", "throughput", "median ICMP round trip through the tunnel under the sample's load")
          .in(0, kMs)
          .as_metric({4, "p50 latency", false, "lower", "higher", false,
                      [](const SampleRow& r) { return echoed(r) ? r.latency_p50_ms : 0.0; }, echoed})
          .when(echoed),
      REAL(latency_p99_ms, 3, "ms", "throughput", "99th percentile of those round trips")
          .in(0, kMs)
          .as_metric({3, "p99 latency", false, "lower", "higher", true,
                      [](const SampleRow& r) { return echoed(r) ? r.latency_p99_ms : 0.0; }, echoed, "p99 ms", 12,
                      "{:.2f}", 1, 5})
          .when(echoed),
      INT(latency_probes, "", "throughput", "ICMP probes answered during the sample").in(0, 1 << 30),
      REAL(outside_load, 2, "tasks", "all",
           "tasks runnable outside the lab just before the sample (0: the machine was idle)")
          .in(0, kAny),
      TEXT(softirq_by_cpu, "", "all",
           "each CPU's share of the sample's softirq time, \"0:0.62;1:0.38\" (hosts: \"h1/0:0.62;...\")"),
      REAL(wire_pps, 0, "frames/s", "all",
           "frames the receiving side's underlay carried, merged segments counted as the full-size frames they stand "
           "for: comparable "
           "between the baseline and tunnels")
          .in(0, kAny)
          .as_metric({6, "wire packets/s", true, "more", "fewer", false, nullptr,
                      [](const SampleRow& r) { return r.wire_pps > 0; }, "wire kpps", 12, "{:.1f}", 1000, 4}),
      TEXT(cpu_by_host, "CPU-s", "hosts backend",
           "each machine's busy CPU seconds, \"h1:1.234;h2:0.987\" (cpu_s is their sum)"),
  };
  t->insert(t->end(), part.begin(), part.end());
}

// What a test kind, a sweep, a chain or a variant adds.
void add_kind_figures(std::vector<Figure>* t) {
  std::vector<Figure> part = {
      TEXT(kind, "", "all", "the test's kind: empty for throughput, else rr, crr or latency"),
      REAL(tps, 1, "1/s", "rr, crr, latency", "transactions per second (crr: connections, latency: answered echoes)")
          .in(0, kAny)
          .when(is_transactional),
      REAL(tx_p50_ms, 4, "ms", "rr, crr, latency", "median time of one transaction, from the generator's own histogram")
          .in(0, kMs)
          .when(is_transactional),
      REAL(tx_p90_ms, 4, "ms", "rr, crr, latency", "90th percentile").in(0, kMs).when(is_transactional),
      REAL(tx_p99_ms, 4, "ms", "rr, crr, latency", "99th percentile").in(0, kMs).when(is_transactional),
      REAL(tx_p999_ms, 4, "ms", "rr, crr, latency", "99.9th percentile").in(0, kMs).when(is_transactional),
      INT(payload_bytes, "bytes", "udp, rr",
          "UDP payload size of the test; rr: request and response bytes each (since 0.2.0)")
          .in(0, 65535),
      REAL(offered_bps, 0, "bit/s", "udp", "the rate the senders achieved (what was offered)").in(0, 1e13).when(is_udp),
      REAL(zero_loss_bps, 0, "bit/s", "udp zero_loss",
           "the highest offered rate within the loss threshold found by the search; 0: none was")
          .in(0, 1e13),
      INT(hops, "", "[[chain]]", "tunnels in sequence the test's traffic crossed (0: no chain)").in(0, 64),
      TEXT(sweep_of, "", "sweep", "the swept test this row's test is a point of (empty: not swept)")
          .since_version("0.2.0"),
      TEXT(point, "", "sweep",
           "the point's value on each swept axis, axis=value;... in the file's order, e.g. streams=8;length=64")
          .since_version("0.2.0"),
      OPT_INT(rule_packets, -1, "packets", "[[variant]] nft",
              "packets the variant's nftables counters counted on the VPN nodes during the sample (empty: no variant "
              "rules); 0 makes the row "
              "invalid")
          .in(-1, kAny)
          .since_version("0.2.0"),
  };
  t->insert(t->end(), part.begin(), part.end());
}

// A native relay's own cost (a relay chain's middle node: Nebula's relay, an EasyTier peer,
// Tailscale's DERP server), apart from the ends' in cpu_s and daemon_rss_kb.
void add_relay_cost(std::vector<Figure>* t) {
  std::vector<Figure> part = {
      REAL(relay_cpu_s, 3, "CPU-s", "relay chain",
           "CPU seconds (user + system) the daemons on the native relay the test crossed used during the sample; the "
           "softirq work for "
           "their packets is in cpu_s only")
          .in(0, kCpu)
          .since_version("0.2.0")
          .when(relay_cpu_metered),
      INT(relay_rss_kb, "KiB", "relay chain", "peak resident memory of those daemons")
          .in(0, static_cast<double>(int64_t{1} << 40))
          .since_version("0.2.0")
          .when(relay_metered),
  };
  t->insert(t->end(), part.begin(), part.end());
}

bool idle_echoed(const SampleRow& r) { return r.idle_probes > 0 && r.latency_probes > 0; }

// Latency the load adds (the bufferbloat a tunnel brings: its queues, one flow wrapping
// many): the round trip just before the load, and the loaded one above it.
void add_load_latency(std::vector<Figure>* t) {
  std::vector<Figure> part = {
      REAL(idle_p50_ms, 3, "ms", "throughput",
           "median ICMP round trip through the tunnel in the probes just before the sample's load")
          .in(0, kMs)
          .since_version("0.2.0")
          .when(idle_echoed),
      INT(idle_probes, "", "throughput", "those idle probes answered (0: the idle and added figures were not measured)")
          .in(0, 1 << 20)
          .since_version("0.2.0"),
      REAL(added_p50_ms, 3, "ms", "throughput",
           "latency_p50_ms minus idle_p50_ms: what the load adds to the median round trip")
          .in(-kMs, kMs)
          .since_version("0.2.0")
          .when(idle_echoed),
      // A ratio needs a positive value: a load that adds nothing measurable counts as 1 us.
      REAL(added_p99_ms, 3, "ms", "throughput",
           "latency_p99_ms minus idle_p50_ms: what the load adds to the round trip at the 99th percentile")
          .in(-kMs, kMs)
          .since_version("0.2.0")
          .as_metric({11, "added p99", false, "lower", "higher", true,
                      [](const SampleRow& r) { return idle_echoed(r) ? std::max(r.added_p99_ms, 0.001) : 0.0; },
                      idle_echoed})
          .when(idle_echoed),
  };
  t->insert(t->end(), part.begin(), part.end());
}

bool has_peers(const SampleRow& r) { return r.fairness > 0; }

// Several peers into one node (or one node out to several): did each get its share?
void add_fairness(std::vector<Figure>* t) {
  std::vector<Figure> part = {
      TEXT(peer_gbps, "Gbit/s", "several servers",
           "each peer's throughput, \"b:0.112;c:0.098\" (the servers in the test's order)")
          .since_version("0.2.0"),
      TEXT(peer_retransmits, "", "several servers, tcp", "each peer's TCP retransmits, \"b:12;c:3\"")
          .since_version("0.2.0"),
      REAL(fairness, 4, "", "several servers",
           "Jain's fairness index of the peers' throughput, (sum x)^2 / (n sum x^2): 1 = equal shares, 1/n = one peer "
           "has it all; empty: "
           "one peer")
          .in(0, 1)
          .since_version("0.2.0")
          .when(has_peers)
          .as_metric({12, "fairness (Jain)", true, "fairer", "less fair", true, nullptr, has_peers}),
  };
  t->insert(t->end(), part.begin(), part.end());
}

}  // namespace

const std::vector<Figure>& figures() {
  static const std::vector<Figure> table = [] {
    std::vector<Figure> t;
    add_what_ran(&t);
    add_costs(&t);
    add_kind_figures(&t);
    add_load_latency(&t);
    add_relay_cost(&t);
    add_fairness(&t);
    return t;
  }();
  return table;
}

const Figure* find_figure(const std::string& name) {
  for (const auto& f : figures())
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace vpnlab
