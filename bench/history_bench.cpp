// The history at scale (issue 33): N runs of 14 products x 3 samples (a quick '--product
// all' run) added to a fresh file, then one product's series and `check` read back. Prints
// the time per append, the file's size, the read's time and the process's peak memory
// before and after the read: the read streams one run at a time, so its memory is the
// points', not the runs'. Prints figures, asserts nothing.
//   history_bench [RUNS]     (default 2000)
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "bench_support.h"
#include "lab/history/history_check.h"
#include "lab/history/history_store.h"
#include "lab/history/trend.h"

using namespace vpnlab;

namespace {

// The process's peak resident memory so far (VmHWM), in MiB.
double peak_mib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (runs < 1) return 2;
  char tmpl[] = "/tmp/vpnlab-history-bench-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  const std::string dir = tmpl;
  auto store = HistoryStore::open(dir + "/h.sqlite");
  if (!store) return fprintf(stderr, "%s\n", store.error().format().c_str()), 1;
  auto golden = read_run_directory(VPNLAB_TEST_DATA "/run-golden");
  if (!golden) return fprintf(stderr, "%s\n", golden.error().format().c_str()), 1;
  const char* products[] = {
      "baseline", "baseline-nooffload", "wireguard-go",        "boringtun", "nebula",         "openvpn",   "tinc",
      "fastd",    "quicktun",           "strongswan-libipsec", "easytier",  "easytier-plain", "yggdrasil", "tailscale"};
  auto t0 = bench::Clock::now();
  for (int i = 0; i < runs; ++i) {
    RunRecord r = *golden;
    char id[40], started[32];
    snprintf(id, sizeof id, "20260101-%06d-bnch", i);
    snprintf(started, sizeof started, "2026-01-%02dT%02d:%02d:00Z", 1 + i / 1440 % 28, i / 60 % 24, i % 60);
    r.run_id = id, r.started = started;
    r.environment["run_id"] = id, r.environment["started"] = started;
    r.rows.clear();
    for (const char* p : products)
      for (int s = 1; s <= 3; ++s) {
        SampleRow row = golden->rows[1];
        row.run_id = id, row.product = p, row.sample = s;
        row.gbps = 0.5 + 0.01 * s + 0.0001 * (i % 17);
        r.rows.push_back(row);
      }
    if (auto added = store->add(r); !added) return fprintf(stderr, "%s\n", added.error().format().c_str()), 1;
  }
  const double add_ms = bench::ms_since(t0);
  const double file_mib = static_cast<double>(std::filesystem::file_size(dir + "/h.sqlite")) / (1 << 20);
  const double before = peak_mib();
  auto metric = history_metric("gbps").value();
  auto t1 = bench::Clock::now();
  auto trends = load_trends(*store, TrendQuery{"wireguard-go", "", "gbps", false}, metric);
  const double read_ms = bench::ms_since(t1);
  if (!trends) return fprintf(stderr, "%s\n", trends.error().format().c_str()), 1;
  auto t2 = bench::Clock::now();
  CheckOutcome o = check_newest(*trends, CheckQuery{"wireguard-go", "", "gbps", 0.05}, metric);
  const double check_ms = bench::ms_since(t2);
  printf("history_bench: %d runs x %zu rows: append %.2f ms per run (one transaction each, WAL), file %.1f MiB\n", runs,
         std::size(products) * 3, add_ms / runs, file_mib);
  printf("  one product's series (%zu points): read %.0f ms (%.3f ms per run), check %.1f ms (exit %d)\n",
         trends->empty() ? 0 : trends->front().points.size(), read_ms, read_ms / runs, check_ms, o.exit_code);
  printf("  peak memory: %.1f MiB before the read, %.1f MiB after (the read streams one run at a time)\n", before,
         peak_mib());
  std::filesystem::remove_all(dir);
  return 0;
}
