#include "lab/record/column_docs.h"

namespace vpnlab {

// One entry per results.csv column, in file order; a unit test holds it to the column
// table (results_csv.cpp), so a column cannot be added without its description.
const std::vector<ColumnDoc>& column_docs() {
  static const std::vector<ColumnDoc> docs = {
      {"run_id", "", "all", "the run's id (its start time and a tag): the run directory's name"},
      {"timestamp", "UTC", "all", "when the sample started, ISO 8601"},
      {"product", "", "all", "the product as run: its folder's name, or NAME@TAG for another build"},
      {"test", "", "all", "the test's name ([[bench.test]] name)"},
      {"pattern", "", "all", "the traffic's shape: one-to-one, fan-out (one client, several servers), fan-in, mesh"},
      {"direction", "", "all", "forward (client sends), reverse (server sends) or bidirectional"},
      {"protocol", "", "all", "tcp or udp"},
      {"sample", "", "all", "the sample's number from 1: its round in an interleaved run, so one number pairs the products of a round"},
      {"client", "", "all", "the node that runs the test's client"},
      {"server", "", "all", "the node(s) that run its servers"},
      {"streams", "", "throughput", "parallel streams per iperf3 process (-P)"},
      {"reverse", "", "throughput", "iperf3 -R: the server sends"},
      {"mss", "bytes", "throughput", "TCP maximum segment size asked for (-M); empty: the kernel's"},
      {"duration_s", "s", "all", "the sample's measured length (warm-up excluded)"},
      {"gbps", "Gbit/s", "all", "what iperf3 delivered, summed over its processes (rr, crr: the payload both ways)"},
      {"retransmits", "", "throughput", "TCP retransmits of the sample; empty for UDP"},
      {"valid", "", "all", "true when the traffic provably crossed the tunnel (counters, the product's own, the plaintext check); the "
                           "baseline's rows are false by definition and count as results"},
      {"status", "", "all", "ok (the sample finished) or failed"},
      {"reason", "", "all", "why the row is not valid or failed, on one line (the full text is in logs/)"},
      {"cipher", "", "all", "the cipher the product's spec states"},
      {"bringup_s", "s", "all", "from the daemons' start until every overlay ping was answered"},
      {"cpu_s", "CPU-s", "all", "busy CPU seconds over the sample, system-wide (all CPUs, idle and steal left out)"},
      {"cpu_user_s", "CPU-s", "all", "of cpu_s: user and nice time"},
      {"cpu_sys_s", "CPU-s", "all", "of cpu_s: system and irq time"},
      {"cpu_softirq_s", "CPU-s", "all", "of cpu_s: softirq time (the kernel's packet work)"},
      {"steal_s", "CPU-s", "all", "time the hypervisor took from this machine's CPUs during the sample"},
      {"cpu_s_per_gbit", "CPU-s/Gbit", "all", "cpu_s over the Gbit moved: the cost of a Gbit"},
      {"processes", "", "all", "iperf3 (or generator) client processes the test ran"},
      {"pps", "packets/s", "all", "packets the receiving side's interface counted (the baseline's GRO-merged: not comparable with a tunnel's)"},
      {"loss_pct", "%", "udp", "UDP datagrams lost"},
      {"generator_cpu_pct", "% of a CPU", "all", "the busiest iperf3 process's CPU; 90 or more: the generator, not the product, set the pace"},
      {"daemon_rss_kb", "KiB", "all", "peak resident memory of the product's daemons on the busiest node"},
      {"daemon_threads", "", "all", "OS threads of the product's daemons on the busiest node"},
      {"latency_p50_ms", "ms", "throughput", "median ICMP round trip through the tunnel under the sample's load"},
      {"latency_p99_ms", "ms", "throughput", "99th percentile of those round trips"},
      {"latency_probes", "", "throughput", "ICMP probes answered during the sample"},
      {"outside_load", "tasks", "all", "tasks runnable outside the lab just before the sample (0: the machine was idle)"},
      {"softirq_by_cpu", "", "all", "each CPU's share of the sample's softirq time, \"0:0.62;1:0.38\" (hosts: \"h1/0:0.62;...\")"},
      {"wire_pps", "frames/s", "all", "frames the receiving side's underlay carried, merged segments counted as the full-size frames they "
                                      "stand for: comparable between the baseline and tunnels"},
      {"cpu_by_host", "CPU-s", "hosts backend", "each machine's busy CPU seconds, \"h1:1.234;h2:0.987\" (cpu_s is their sum)"},
      {"kind", "", "all", "the test's kind: empty for throughput, else rr, crr or latency"},
      {"tps", "1/s", "rr, crr, latency", "transactions per second (crr: connections, latency: answered echoes)"},
      {"tx_p50_ms", "ms", "rr, crr, latency", "median time of one transaction, from the generator's own histogram"},
      {"tx_p90_ms", "ms", "rr, crr, latency", "90th percentile"},
      {"tx_p99_ms", "ms", "rr, crr, latency", "99th percentile"},
      {"tx_p999_ms", "ms", "rr, crr, latency", "99.9th percentile"},
      {"payload_bytes", "bytes", "udp, rr", "UDP payload size of the test; rr: request and response bytes each (since 0.2.0)"},
      {"offered_bps", "bit/s", "udp", "the rate the senders achieved (what was offered)"},
      {"zero_loss_bps", "bit/s", "udp zero_loss", "the highest offered rate within the loss threshold found by the search; 0: none was"},
      {"hops", "", "[[chain]]", "tunnels in sequence the test's traffic crossed (0: no chain)"},
      {"sweep_of", "", "sweep", "the swept test this row's test is a point of (empty: not swept)", "0.2.0"},
      {"point", "", "sweep", "the point's value on each swept axis, axis=value;... in the file's order, e.g. streams=8;length=64", "0.2.0"},
      {"rule_packets", "packets", "[[variant]] nft", "packets the variant's nftables counters counted on the VPN nodes during the sample (empty: no variant rules); 0 makes the row invalid", "0.2.0"},
  };
  return docs;
}

}  // namespace vpnlab
