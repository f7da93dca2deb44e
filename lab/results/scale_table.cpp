#include "lab/results/scale_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <map>

#include "lab/base/text_table.h"

namespace vpnlab {

std::string scale_table(const std::vector<ScaleRow>& rows) {
  std::string out;
  const TextTable table({-16, 6, 10, 8, 11, 9, 9, 9, 9, 8, 0, 0});  // the empty column: two spaces before the reason
  out += table.line({"product", "nodes", "converge s", "probe s", "pairs", "CPU-s", "RSS MB", "RSS max", "threads",
                     "Gbit/s", "", ""});
  auto fixed = [](double v, int digits) { return fmt::format("{:.{}f}", v, digits); };
  bool any_contended = false;
  for (const auto& r : rows) {
    any_contended = any_contended || r.contended;
    std::string nodes = std::to_string(r.nodes) + (r.contended ? "*" : "");
    if (r.converge_s < 0) {
      out += table.line({r.product, nodes, "-", "-",
                         r.pairs ? std::to_string(r.answered) + "/" + std::to_string(r.pairs) : "-", "-", "-", "-", "-",
                         "-", "", r.reason});
      continue;
    }
    std::string gbps = r.sample_valid ? std::to_string(r.gbps).substr(0, 5) : "-";
    out += table.line({r.product, nodes, fixed(r.converge_s, 2), fixed(r.sweep_s, 2), std::to_string(r.pairs),
                       fixed(r.bringup_cpu_s, 1), fixed(r.rss_mb_median, 1), fixed(r.rss_mb_max, 1),
                       std::to_string(r.threads_median), gbps, "", r.reason});
  }
  out +=
      "converge s: first daemon started -> every ordered node pair answered an echo through the tunnel (all pairs "
      "probed at once);\n"
      "probe s: of that, from the first probe (every daemon started and configured) on;\n"
      "CPU-s: the machine's busy CPU seconds over that bring-up; RSS MB, threads: per node, its daemons' peak RSS "
      "(median node; max);\n"
      "Gbit/s: one sample from the first node to the last with the whole mesh up.\n";
  if (any_contended)
    out += "* contended: more nodes than CPUs, so nodes share CPUs and every figure includes waiting for one.\n";
  return out;
}

KindSection scale_section(const std::vector<ScaleRow>& rows, int cpu_count) {
  KindSection k;
  k.heading = "Mesh scale: every node a VPN peer of every other";
  k.table.push_back({"product", "nodes", "converge s", "probe s", "pairs answered", "CPU-s", "RSS MB (median node)",
                     "RSS MB max", "threads", "Gbit/s", "note"});
  std::map<std::string, Series> converge, rss, threads;
  std::vector<std::string> products;  // palette slots in order of appearance
  for (const auto& r : rows) {
    if (std::find(products.begin(), products.end(), r.product) == products.end()) products.push_back(r.product);
    const bool up = r.converge_s >= 0;
    k.table.push_back(
        {r.product, std::to_string(r.nodes) + (r.contended ? " (contended)" : ""),
         up ? number_text("{:.2f}", r.converge_s) : "-", up ? number_text("{:.2f}", r.sweep_s) : "-",
         std::to_string(r.answered) + "/" + std::to_string(r.pairs), up ? number_text("{:.1f}", r.bringup_cpu_s) : "-",
         up ? number_text("{:.1f}", r.rss_mb_median) : "-", up ? number_text("{:.1f}", r.rss_mb_max) : "-",
         up ? std::to_string(r.threads_median) : "-", r.sample_valid ? number_text("{:.3f}", r.gbps) : "-", r.reason});
    if (!up) continue;
    for (auto [series, v] : {std::pair{&converge, r.converge_s}, std::pair{&rss, r.rss_mb_median},
                             std::pair{&threads, double(r.threads_median)}}) {
      Series& line = (*series)[r.product];
      line.label = r.product;
      line.color = static_cast<int>(std::find(products.begin(), products.end(), r.product) - products.begin());
      line.points.push_back({static_cast<double>(r.nodes), v});
    }
  }
  k.caption = "Mesh scale per product and size; contended: more nodes than this machine's " +
              std::to_string(cpu_count) + " CPUs";
  k.note =
      "converge s: first daemon started until every ordered node pair answered an echo through the tunnel; probe s: of "
      "that, from the "
      "first probe on; CPU-s: the machine's busy CPU over the bring-up; RSS and threads: per node, its daemons'. "
      "Figures of contended "
      "sizes include waiting for a CPU: they show how a product behaves when its nodes share CPUs, not its cost on "
      "dedicated ones.";
  add_line_chart(&k, "scale-converge.svg", "Seconds until every pair answers, by mesh size", "nodes", "seconds",
                 converge);
  add_line_chart(&k, "scale-rss.svg", "Daemon RSS per node (median node), by mesh size", "nodes", "MB", rss);
  add_line_chart(&k, "scale-threads.svg", "Daemon threads per node, by mesh size", "nodes", "threads", threads);
  return k;
}

}  // namespace vpnlab
