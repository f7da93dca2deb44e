// results.csv: tidy long format, one row per sample, each row flushed and fsync'ed so an
// interrupted run keeps every finished sample and never a half row.
#pragma once
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

// The start of a row's reason when the product cannot run its test by design (no relay of
// its own on a relay chain): the row is kept, and the run is not failed for it.
inline constexpr const char* kNotRun = "not run: ";

struct SampleRow {
  std::string run_id, timestamp, product, test, pattern = "one-to-one", direction, protocol = "tcp";
  int sample = 0;  // 1-based
  std::string client, server;
  int streams = 1;
  bool reverse = false;
  int mss = 0;  // 0: not set
  double duration_s = 0;
  double gbps = 0;
  int64_t retransmits = -1;
  bool valid = false;
  std::string status;  // "ok" or "failed"
  std::string reason;  // kNotRun first: the product cannot run the test at all (a relay chain)
  bool not_run() const { return reason.rfind(kNotRun, 0) == 0; }
  std::string cipher;    // as the product spec states it
  double bringup_s = 0;  // daemons started -> every overlay ping answered
  // CPU over the sample, system-wide (all CPUs, non-idle non-steal), and per Gbit moved.
  double cpu_s = 0, cpu_user_s = 0, cpu_sys_s = 0, cpu_softirq_s = 0, steal_s = 0;
  double cpu_s_per_gbit = 0;
  int processes = 1;  // iperf3 client processes the test ran
  double pps = 0;     // packets per second delivered (receiving side's interface: GRO-merged for the baseline)
  // Frames per second the receiving side's underlay took in, as a NIC would carry them:
  // the larger of the packets counted and the bytes over the link MTU (+14), so a
  // GRO-merged 64 KB segment counts as the ~44 frames it stands for. Baseline and
  // products compare on it.
  double wire_pps = 0;
  double loss_pct = 0;           // UDP datagrams lost
  double generator_cpu_pct = 0;  // busiest iperf3 process, % of one CPU (>= 90: generator-bound)
  int64_t daemon_rss_kb = 0;     // peak RSS of the product's daemons on the busiest node
  int daemon_threads = 0;        // OS threads of the product's daemons on the busiest node
  double relay_cpu_s = 0;        // a native relay's daemons: CPU seconds during the sample (0: no relay crossed)
  int64_t relay_rss_kb = 0;      // and their peak resident memory
  double latency_p50_ms = 0, latency_p99_ms = 0;  // ICMP through the tunnel, under load
  int latency_probes = 0;
  // What the load adds: the median round trip through the tunnel just before the load (idle
  // probes), and the loaded median and p99 above it. 0 with idle_probes 0: not measured.
  double idle_p50_ms = 0, added_p50_ms = 0, added_p99_ms = 0;
  int idle_probes = 0;
  double outside_load = 0;  // run-queue length from outside the lab just before the sample
  std::string
      softirq_by_cpu;       // each CPU's share of the sample's softirq time, "0:0.62;1:0.38" (hosts: "h1/0:0.62;...")
  std::string cpu_by_host;  // hosts backend: each machine's busy CPU seconds, "h1:1.234;h2:0.987" (cpu_s is their sum)
  // rr, crr and latency tests (empty kind: a throughput test, or a row of an older version).
  std::string kind;
  double tps = 0;  // transactions (crr: connections, latency: answered echoes) per second
  double tx_p50_ms = 0, tx_p90_ms = 0, tx_p99_ms = 0, tx_p999_ms = 0;  // one transaction, the generator's own histogram
  // UDP tests: the payload size, the rate offered, and a zero-loss search's result (the
  // highest offered rate within the loss threshold; 0 when none was, or no search).
  int payload_bytes = 0;
  double offered_bps = 0, zero_loss_bps = 0;
  // [[chain]] topologies: the tunnels in sequence the test's traffic crosses (0: no chain).
  int hops = 0;
  // A point of a sweep (lab/model/sweep.h): the test it belongs to and its axis values,
  // "streams=8;length=64" (both empty for a test that is not swept).
  std::string sweep_of, point;
  // A [[variant]] with nftables rules: the packets its counters counted on the VPN nodes
  // during the sample (-1: no such rules). 0 makes the row invalid: the rule measured nothing.
  int64_t rule_packets = -1;
  // A test with several peers (one client, several servers, either way): each peer's share
  // ("b:0.112;c:0.098", Gbit/s; its TCP retransmits likewise) and Jain's fairness index of the
  // shares, (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one peer has it all; 0: one
  // peer, not measured.
  std::string peer_gbps, peer_retransmits;
  double fairness = 0;
  bool is_transactions() const;  // its kind's rows are transactions (lab/model/test_kinds.h)
};

inline constexpr double kGeneratorBoundPct = 90;

// What a sample measured, for progress lines: "0.244 Gbit/s", "1234.5 transactions/s".
std::string headline_figure(const SampleRow& r);

// Whether a row is a result: a finished sample that provably crossed the tunnel (the
// baseline has none to cross). Tables, verdicts and sampling count these rows only. The
// first results files marked every baseline row invalid, "no tunnel (baseline)".
inline bool counts_as_result(const SampleRow& r) {
  return r.status == "ok" && (r.valid || (r.product == "baseline" && r.reason == "no tunnel (baseline)"));
}

// A valid row whose sample the hypervisor disturbed (lab/run/sample_meters.h steal_verdict):
// it counts, with a warning under the table, but adaptive sampling leaves its round out.
inline constexpr const char* kDisturbedPrefix = "disturbed: ";
inline constexpr double kMaxStealShare = 0.05;  // of the CPUs' time; above it a sample is disturbed
inline bool is_disturbed(const SampleRow& r) { return r.reason.rfind(kDisturbedPrefix, 0) == 0; }

const std::vector<std::string>& results_csv_header();
// The header as results.csv's first line holds it, without its end of line.
std::string results_csv_header_line();
std::string csv_escape(const std::string& field);
std::string format_row(const SampleRow& row);

class ResultsCsv {
 public:
  // Opens (or creates, with the header) the file for appending. A torn last row is cut
  // off first, and *repaired (if given) says so.
  static Result<ResultsCsv> create(const std::string& path, std::string* repaired = nullptr);
  Status append(const SampleRow& row);
  // `run --rows-jsonl`: every row appended is also written to fd (not owned) as one JSON
  // line (row_json); `name` says where in the warning if that stream fails. The fd is made
  // non-blocking: what a slow reader has not taken waits in a backlog of at most
  // kMaxRowsBacklog bytes, written before the next row; a reader that falls further behind
  // (or has stopped reading) is dropped with a warning. The run never waits for it.
  void mirror_to(int fd, std::string name);
  static constexpr size_t kMaxRowsBacklog = 1 << 20;

 private:
  void mirror_row(const SampleRow& row);
  UniqueFd fd_;
  std::string path_;
  int mirror_fd_ = -1;
  std::string mirror_name_;
  std::string mirror_backlog_;
};

// How a column's text reads: JSON's types for row_json and the column list.
enum class ColumnType { text, integer, real, boolean };
// Every column in file order, with its type.
std::vector<std::pair<std::string, ColumnType>> results_csv_columns();
// A row as a JSON object keyed by the CSV's column names, each value the CSV's own text
// typed (numbers as numbers, true/false, an empty number null).
nlohmann::json row_json(const SampleRow& row);

// Reads rows back (for the summary table and tests), by column name: files written by
// an earlier version, with fewer columns, read with defaults for the missing ones. Rows
// are CSV records (a quoted field may span lines); a row that does not parse, or has the
// wrong field count, or figures no run writes, is an error naming its line, never skipped.
// With drop_torn_tail, a last row without its end of line is left out (resume cuts it off
// before appending); otherwise it is an error too.
Result<std::vector<SampleRow>> read_results_csv(const std::string& path, bool drop_torn_tail = false);
// The same checks on results.csv text held elsewhere (the history's copy of a run), `path`
// naming it in messages.
Result<std::vector<SampleRow>> parse_results_csv(const std::string& text, const std::string& path,
                                                 bool drop_torn_tail = false);

// What a row must hold to be a result: a product, a test, a sample number, a status, and
// finite non-negative figures.
Status check_row(const SampleRow& row);

// A reason as one CSV line: newlines become " | ", control characters spaces (the full
// text, e.g. a log tail, lives in logs/).
std::string one_line(const std::string& text);

// The file's size and the size up to its last newline (what is whole).
struct CsvTail {
  off_t size = 0, whole_size = 0;
};
Result<CsvTail> inspect_csv_tail(const std::string& path);

}  // namespace vpnlab
