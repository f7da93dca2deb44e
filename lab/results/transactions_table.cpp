#include "lab/results/transactions_table.h"

#include <fmt/format.h>
#include <cstdio>
#include <map>
#include <sstream>

#include "lab/base/text_table.h"
#include "lab/model/test_kinds.h"
#include "lab/results/paired.h"
#include "lab/results/summary.h"

namespace vpnlab {

std::vector<TransactionSummary> summarize_transactions(const std::vector<SampleRow>& rows) {
  struct Series {
    std::vector<double> tps, p50, p90, p99, p999, cpu, rss;
    std::map<int, double> by_sample;
  };
  std::vector<TransactionSummary> out;
  std::vector<Series> series;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const auto& r : rows) {
    if (!r.is_transactions()) continue;
    auto [at, added] = index.try_emplace({r.product, r.test}, out.size());
    if (added) out.push_back({r.product, r.test, r.kind}), series.emplace_back();
    TransactionSummary& s = out[at->second];
    ++s.rows;
    if (!counts_as_result(r) || r.tps <= 0) continue;
    Series& v = series[at->second];
    v.tps.push_back(r.tps);
    v.by_sample[r.sample] = r.tps;
    v.p50.push_back(r.tx_p50_ms), v.p90.push_back(r.tx_p90_ms), v.p99.push_back(r.tx_p99_ms),
        v.p999.push_back(r.tx_p999_ms);
    if (r.cpu_s > 0 && r.duration_s > 0) v.cpu.push_back(1e6 * r.cpu_s / (r.tps * r.duration_s));
    if (r.daemon_rss_kb > 0) v.rss.push_back(static_cast<double>(r.daemon_rss_kb));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const Series& v = series[i];
    out[i].tps = describe(v.tps);
    out[i].p50_ms = describe(v.p50), out[i].p90_ms = describe(v.p90), out[i].p99_ms = describe(v.p99),
    out[i].p999_ms = describe(v.p999);
    out[i].cpu_us_per_tx = describe(v.cpu);
    out[i].rss_kb = describe(v.rss);
    auto base = index.find({"baseline", out[i].test});
    if (base == index.end() || out[i].product == "baseline") continue;
    std::vector<double> ratios;
    for (const auto& [sample, tps] : v.by_sample) {
      auto other = series[base->second].by_sample.find(sample);
      if (other != series[base->second].by_sample.end() && other->second > 0) ratios.push_back(tps / other->second);
    }
    out[i].paired_ratio = describe(ratios);
    out[i].baseline_ratio = ratio_interval(ratios, kRatioLevel);
  }
  return out;
}

std::string transactions_table(const std::vector<SampleRow>& rows) {
  const auto summaries = summarize_transactions(rows);
  if (summaries.empty()) return "";
  std::ostringstream o;
  const TextTable table({-20, -14, -7, 10, 21, 7, 21, 9, 9, 9, 9, 11, 11, 6});
  o << "\nrequest/response tests (rr: transactions on one connection; crr: a new connection each; latency: idle ICMP "
       "echoes every 10 ms)\n"
    << table.line({"product", "test", "kind", "per s", "95% int. (median)", "CV", "x baseline (95% int.)", "p50 ms",
                   "p90 ms", "p99 ms", "p99.9 ms", "CPU-us/tx", "RSS MB", "valid"});
  for (const auto& s : summaries) {
    std::string valid = std::to_string(s.tps.n) + "/" + std::to_string(s.rows);
    if (s.tps.n == 0) {
      o << table.line({s.product, s.test, s.kind, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", valid});
      continue;
    }
    std::string tps;
    std::string interval;
    std::string cv;
    std::string ratio = "-";
    std::string p50;
    std::string p90;
    std::string p99;
    std::string p999;
    tps = fmt::format("{:.1f}", s.tps.median);
    interval = fmt::format("{:.1f}-{:.1f}{}", s.tps.ci_low, s.tps.ci_high, s.tps.coverage < 0.95 ? "*" : "");
    cv = fmt::format("{:.1f}%{}", 100 * s.tps.cv, s.tps.cv > kHighCv ? "!" : "");
    if (!test_kind(s.kind).rate_vs_baseline)
      ratio = "-";  // echoes are sent at a fixed rate: their rate is no result
    else if (s.product == "baseline")
      ratio = "1";
    else
      ratio = ratio_interval_text(s.baseline_ratio);
    p50 = fmt::format("{:.3f}", s.p50_ms.median);
    p90 = fmt::format("{:.3f}", s.p90_ms.median);
    p99 = fmt::format("{:.3f}", s.p99_ms.median);
    p999 = fmt::format("{:.3f}", s.p999_ms.median);
    o << table.line({s.product, s.test, s.kind, tps, interval, cv, ratio, p50, p90, p99, p999,
                     compact_interval(s.cpu_us_per_tx, "{:.1f}"), compact_interval(s.rss_kb, "{:.1f}", 1024), valid});
  }
  o << "per s: transactions (crr: connections, latency: answered echoes) per second, median over samples; p50-p99.9: "
       "one transaction's time, request sent to "
       "response received (medians over samples of each sample's percentile; vpnlab-crr's, whose crr time "
       "includes the connect); CPU-us/tx: the machine's busy CPU per transaction\n";
  for (const auto& s : summaries)
    if (s.tps.n < static_cast<size_t>(s.rows))
      o << "! " << s.product << " / " << s.test << ": " << s.rows - static_cast<int>(s.tps.n) << " of " << s.rows
        << " sample(s) not valid (see the reason column of results.csv)\n";
  return o.str();
}

nlohmann::json transactions_json(const std::vector<SampleRow>& rows) {
  auto stats = [](const SampleStats& s) {
    return nlohmann::json{
        {"n", s.n}, {"median", s.median}, {"ci95_low", s.ci_low}, {"ci95_high", s.ci_high}, {"cv", s.cv}};
  };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : summarize_transactions(rows)) {
    nlohmann::json j = {{"product", s.product},
                        {"test", s.test},
                        {"kind", s.kind},
                        {"rows", s.rows},
                        {"valid_rows", s.tps.n},
                        {"per_second", stats(s.tps)},
                        {"p50_ms", stats(s.p50_ms)},
                        {"p90_ms", stats(s.p90_ms)},
                        {"p99_ms", stats(s.p99_ms)},
                        {"p999_ms", stats(s.p999_ms)},
                        {"cpu_us_per_transaction", stats(s.cpu_us_per_tx)},
                        {"daemon_rss_kb", stats(s.rss_kb)}};
    if (s.paired_ratio.n > 0) j["paired_ratio_to_baseline"] = stats(s.paired_ratio);
    if (s.baseline_ratio.n > 0) j["ratio_to_baseline_interval"] = ratio_interval_json(s.baseline_ratio);
    out.push_back(j);
  }
  return out;
}

}  // namespace vpnlab
