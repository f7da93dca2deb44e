#include "lab/results/hop_cost.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <sstream>

#include "lab/base/text_table.h"
#include "lab/results/paired.h"
#include "lab/results/summary.h"

namespace vpnlab {

namespace {

// Per sample number, a metric's value of the valid rows of one product x test.
ByRound by_round(const std::vector<const SampleRow*>& rows, double (*value)(const SampleRow&)) {
  ByRound out;
  for (const SampleRow* r : rows)
    if (counts_as_result(*r) && value(*r) > 0) out[r->sample] = value(*r);
  return out;
}

std::vector<double> values(const ByRound& m) {
  std::vector<double> out;
  for (const auto& [round, v] : m) out.push_back(v);
  return out;
}

// B over A for the rounds both measured.
PairedEstimate ratio(const ByRound& a, const ByRound& b) {
  std::vector<double> va, vb;
  pair_rounds(a, b, &va, &vb);
  return paired_ratio(va, vb);
}

double gbps_of(const SampleRow& r) { return r.gbps; }
double cpu_of(const SampleRow& r) { return r.cpu_s_per_gbit; }
double p99_of(const SampleRow& r) { return r.latency_p99_ms; }
double relay_cpu_of(const SampleRow& r) {
  const double gbit = r.gbps * r.duration_s;
  return r.relay_rss_kb > 0 && gbit > 0 ? r.relay_cpu_s / gbit : 0;
}
double relay_rss_of(const SampleRow& r) { return static_cast<double>(r.relay_rss_kb) / 1024; }

// A ratio over the reference test ("1" in the reference's own row).
std::string ratio_cell(const HopCost& h, const PairedEstimate& e) {
  if (h.test == h.reference) return "1";
  if (e.n == 0) return "-";
  std::string out;
  if (e.n < 2)
    out = fmt::format("{:.2f} (1 round)", e.ratio);  // no interval from one pair
  else
    out = fmt::format("{:.2f} ({:.2f}-{:.2f})", e.ratio, e.ci_low, e.ci_high);
  return out;
}

}  // namespace

std::string relay_cost_lines(const std::vector<HopCost>& costs) {
  if (std::none_of(costs.begin(), costs.end(), [](const HopCost& h) { return h.relay_rss_mb.n > 0; })) return "";
  std::ostringstream o;
  const TextTable table({-20, -14, 18, 14});
  o << "\nthe relay's own cost (the daemons on the native relay the test crossed: user + system CPU per Gbit moved, "
       "peak RSS; "
       "their packets' softirq work is in CPU-s/Gbit above)\n"
    << table.line({"product", "test", "relay CPU-s/Gbit", "relay RSS MB"});
  for (const auto& h : costs)
    if (h.relay_rss_mb.n > 0)
      o << table.line({h.product, h.test, compact_interval(h.relay_cpu_per_gbit, "{:.3f}"),
                       compact_interval(h.relay_rss_mb, "{:.1f}")});
  return o.str();
}

std::vector<HopCost> summarize_hop_costs(const std::vector<SampleRow>& rows) {
  std::vector<std::string> products;
  std::map<std::pair<std::string, std::string>, std::vector<const SampleRow*>> groups;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& r : rows) {
    if (r.hops <= 0 || r.is_transactions()) continue;
    if (std::find(products.begin(), products.end(), r.product) == products.end()) products.push_back(r.product);
    auto key = std::make_pair(r.product, r.test);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::vector<HopCost> out;
  for (const auto& product : products) {
    std::vector<HopCost> mine;
    for (const auto& key : order) {
      if (key.first != product) continue;
      const auto& g = groups[key];
      HopCost h;
      h.product = product;
      h.test = key.second;
      h.hops = g.front()->hops;
      h.rows = static_cast<int>(g.size());
      h.gbps = describe(values(by_round(g, gbps_of)));
      h.cpu_per_gbit = describe(values(by_round(g, cpu_of)));
      h.p99_ms = describe(values(by_round(g, p99_of)));
      h.relay_cpu_per_gbit = describe(values(by_round(g, relay_cpu_of)));
      h.relay_rss_mb = describe(values(by_round(g, relay_rss_of)));
      mine.push_back(std::move(h));
    }
    std::stable_sort(mine.begin(), mine.end(), [](const HopCost& a, const HopCost& b) { return a.hops < b.hops; });
    // The reference: a one-hop test of the same direction and protocol, else any one-hop test.
    for (auto& h : mine) {
      const SampleRow& mine_row = *groups[{product, h.test}].front();
      const HopCost* ref = nullptr;
      for (const auto& c : mine) {
        if (c.hops != 1) continue;
        const SampleRow& r = *groups[{product, c.test}].front();
        if (!ref ||
            (r.direction == mine_row.direction && r.protocol == mine_row.protocol && r.reverse == mine_row.reverse))
          ref = &c;
      }
      if (!ref) continue;
      h.reference = ref->test;
      const auto& a = groups[{product, ref->test}];
      const auto& b = groups[{product, h.test}];
      h.gbps_ratio = ratio(by_round(a, gbps_of), by_round(b, gbps_of));
      h.cpu_ratio = ratio(by_round(a, cpu_of), by_round(b, cpu_of));
      h.p99_ratio = ratio(by_round(a, p99_of), by_round(b, p99_of));
    }
    out.insert(out.end(), mine.begin(), mine.end());
  }
  return out;
}

std::string hop_cost_table(const std::vector<SampleRow>& rows) {
  const auto costs = summarize_hop_costs(rows);
  if (costs.empty()) return "";
  std::ostringstream o;
  const TextTable table({-20, -14, 4, 8, 12, 11, 20, 20, 20, 6});
  o << "\nhop cost (hops: underlay hops crossed, each its own tunnel unless a product's native relay joins two; x 1 "
       "hop: this test over "
       "the one-hop test, round by round, with the 95 % interval)\n"
    << table.line({"product", "test", "hops", "Gbit/s", "CPU-s/Gbit", "p99 ms", "Gbit/s x 1 hop", "CPU-s/Gbit x 1 hop",
                   "p99 x 1 hop", "valid"});
  for (const auto& h : costs) {
    std::string valid = std::to_string(h.gbps.n) + "/" + std::to_string(h.rows);
    std::string gbps = "-";
    std::string cpu = "-";
    std::string p99 = "-";
    if (h.gbps.n > 0) gbps = fmt::format("{:.3f}", h.gbps.median);
    if (h.cpu_per_gbit.n > 0) cpu = compact_interval(h.cpu_per_gbit, "{:.2f}");
    if (h.p99_ms.n > 0) p99 = compact_interval(h.p99_ms, "{:.2f}");
    o << table.line({h.product, h.test, std::to_string(h.hops), gbps, cpu, p99, ratio_cell(h, h.gbps_ratio),
                     ratio_cell(h, h.cpu_ratio), ratio_cell(h, h.p99_ratio), valid});
  }
  o << "p99 ms: ICMP round trips through the chain under the test's load (median of the samples' p99); the baseline "
       "routes through the same "
       "relays without tunnels\n";
  o << relay_cost_lines(costs);
  return o.str();
}

nlohmann::json hop_cost_json(const std::vector<SampleRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  auto est = [](const PairedEstimate& e) -> nlohmann::json {
    if (e.n == 0) return nullptr;
    return {{"ratio", e.ratio}, {"ci_low", e.ci_low}, {"ci_high", e.ci_high}, {"pairs", e.n}};
  };
  for (const auto& h : summarize_hop_costs(rows))
    out.push_back(
        {{"product", h.product},
         {"test", h.test},
         {"hops", h.hops},
         {"reference", h.reference},
         {"rows", h.rows},
         {"valid", h.gbps.n},
         {"gbps_median", h.gbps.median},
         {"cpu_s_per_gbit_median", h.cpu_per_gbit.median},
         {"latency_p99_ms_median", h.p99_ms.median},
         {"gbps_ratio", est(h.gbps_ratio)},
         {"cpu_ratio", est(h.cpu_ratio)},
         {"p99_ratio", est(h.p99_ratio)},
         {"relay_cpu_s_per_gbit_median",
          h.relay_cpu_per_gbit.n ? nlohmann::json(h.relay_cpu_per_gbit.median) : nlohmann::json()},
         {"relay_rss_mb_median", h.relay_rss_mb.n ? nlohmann::json(h.relay_rss_mb.median) : nlohmann::json()}});
  return out;
}

KindSection hop_cost_section(const std::vector<SampleRow>& rows, const std::map<std::string, int>& color) {
  KindSection k;
  const auto costs = summarize_hop_costs(rows);
  if (costs.empty()) return k;
  k.heading = "Hop cost: the same test across 1, 2, 3... tunnels in sequence";
  const bool relays = std::any_of(costs.begin(), costs.end(), [](const HopCost& h) { return h.relay_rss_mb.n > 0; });
  k.table.push_back({"product", "test", "hops", "Gbit/s", "CPU-s/Gbit", "p99 ms", "Gbit/s x 1 hop",
                     "CPU-s/Gbit x 1 hop", "p99 x 1 hop", "valid"});
  if (relays) k.table.back().insert(k.table.back().end(), {"relay CPU-s/Gbit", "relay RSS MB"});
  std::map<std::string, Series> speed, cpu;
  for (const auto& h : costs) {
    const bool is_ref = h.test == h.reference;
    k.table.push_back({h.product, h.test, std::to_string(h.hops), h.gbps.n ? number_text("{:.3f}", h.gbps.median) : "-",
                       h.cpu_per_gbit.n ? number_text("{:.2f}", h.cpu_per_gbit.median) : "-",
                       h.p99_ms.n ? number_text("{:.2f}", h.p99_ms.median) : "-", ratio_cell(h, h.gbps_ratio),
                       ratio_cell(h, h.cpu_ratio), ratio_cell(h, h.p99_ratio),
                       std::to_string(h.gbps.n) + "/" + std::to_string(h.rows)});
    if (relays)
      k.table.back().insert(k.table.back().end(),
                            {h.relay_rss_mb.n ? number_text("{:.3f}", h.relay_cpu_per_gbit.median) : "-",
                             h.relay_rss_mb.n ? number_text("{:.1f}", h.relay_rss_mb.median) : "-"});
    const double g = is_ref ? 1 : h.gbps_ratio.ratio, c = is_ref ? 1 : h.cpu_ratio.ratio;
    for (auto [series, v] : {std::pair{&speed, g}, std::pair{&cpu, c}}) {
      if (v <= 0 || h.reference.empty()) continue;
      Series& line = (*series)[h.product];
      line.label = h.product, line.color = color_of(color, h.product);
      line.points.push_back({static_cast<double>(h.hops), v});
    }
  }
  k.caption =
      "Hop cost: medians of the valid samples; x 1 hop: over the one-hop test in the same rounds, with the 95 % "
      "interval";
  k.note =
      "Each hop is a tunnel of its own between neighbours; a relay runs one instance of the product per hop and "
      "forwards between them. "
      "The baseline routes the same packets through the same relays without tunnels. p99: ICMP round trips through the "
      "chain under the "
      "test's load." +
      std::string(relays ? " relay: the daemons on a native relay the test crossed, their user + system CPU per Gbit "
                           "moved and peak RSS."
                         : "");
  add_line_chart(&k, "hops-throughput.svg", "Throughput over one hop's, by hop count", "hops", "x 1 hop", speed);
  add_line_chart(&k, "hops-cpu.svg", "CPU-s/Gbit over one hop's, by hop count", "hops", "x 1 hop", cpu);
  return k;
}

}  // namespace vpnlab
