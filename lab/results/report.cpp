#include "lab/results/report.h"
#include "lab/results/paired.h"
#include "lab/results/sampling_text.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"
#include "lab/base/out_dir.h"
#include "lab/record/achieved_text.h"
#include "lab/record/results_csv.h"
#include "lab/record/run_layout.h"
#include "lab/results/conclusion.h"
#include "lab/results/emulation_note.h"
#include "lab/results/hop_cost.h"
#include "lab/results/latency_cdf.h"
#include "lab/results/link_ceiling.h"
#include "lab/results/report_hosts.h"
#include "lab/results/report_kinds.h"
#include "lab/results/report_pairwise.h"
#include "lab/results/rss_series.h"
#include "lab/results/run_files.h"
#include "lab/results/summary.h"
#include "lab/results/svg.h"

namespace vpnlab {

namespace {

// The report as blocks, rendered twice: Markdown and HTML.
struct Block {
  enum class Kind { heading, para, list, table, plot } kind;
  std::string text;                            // heading/para text, plot file name; a para's items: its class
  std::vector<std::string> items;              // list items
  std::vector<std::vector<std::string>> rows;  // table rows, the first is the header
  std::string svg;                             // plot
};

// Text from products and runs (versions, ciphers, reasons) as Markdown text: no raw HTML
// (a '<' starts a tag, '&' an entity), no line break, and in a table cell no '|'.
// Text from a run (reasons, versions, names) as Markdown shows it literally: no HTML, no
// link or image ("![x](http://...)" in a reason would load a remote image where report.md is
// rendered: a link needs its brackets), no code span, a table cell's '|' kept in its cell.
std::string md_text(const std::string& text, bool cell = false) {
  std::string o;
  for (char c : text) {
    if (c == '<')
      o += "&lt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '\n' || c == '\r')
      o += ' ';
    else if (c == '|' && cell)
      o += "\\|";
    else if (c == '[' || c == ']' || c == '`')
      o += std::string("\\") + c;  // no link, image or code span can start
    else
      o += c;
  }
  return o;
}

std::string markdown(const std::vector<Block>& doc) {
  std::string o;
  for (const auto& b : doc) {
    switch (b.kind) {
      case Block::Kind::heading:
        o += (b.items.empty() ? "## " : "# ") + md_text(b.text) + "\n\n";
        break;
      case Block::Kind::para:
        o += (b.items.empty() ? md_text(b.text) : "**" + md_text(b.text) + "**") + "\n\n";
        break;
      case Block::Kind::list:
        for (const auto& i : b.items) o += "- " + md_text(i) + "\n";
        o += "\n";
        break;
      case Block::Kind::table:
        for (size_t r = 0; r < b.rows.size(); ++r) {
          o += "|";
          for (const auto& c : b.rows[r]) o += " " + md_text(c, true) + " |";
          o += "\n";
          if (r == 0) {
            o += "|";
            for (size_t c = 0; c < b.rows[0].size(); ++c) o += c < 2 ? "---|" : "---:|";
            o += "\n";
          }
        }
        o += "\n";
        break;
      case Block::Kind::plot:
        o += "![" + b.text + "](plots/" + b.text + ")\n\n";
        break;
    }
  }
  return o;
}

std::string html(const std::vector<Block>& doc, const std::string& title) {
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + xml_escape(title) +
      "</title>\n<style>body{font-family:sans-serif;max-width:1360px;margin:2em auto;padding:0 12px;color:#222}"
      "p.answer{font-size:17px;font-weight:bold}"
      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 5px;text-align:right}"
      "td:first-child,td:nth-child(2),th{text-align:left}th{background:#f4f4f4}.plots{display:flex;flex-wrap:wrap;gap:"
      "8px}"
      "li.warn{color:#a40}.wide{overflow-x:auto}table{font-size:13px}caption{text-align:left;font-style:italic}</"
      "style></head><body>\n";
  bool in_plots = false;
  for (const auto& b : doc) {
    if (in_plots && b.kind != Block::Kind::plot) o += "</div>\n", in_plots = false;
    switch (b.kind) {
      case Block::Kind::heading:
        o += (b.items.empty() ? "<h2>" : "<h1>") + xml_escape(b.text) + (b.items.empty() ? "</h2>\n" : "</h1>\n");
        break;
      case Block::Kind::para:
        o += (b.items.empty() ? "<p>" : "<p class=\"" + xml_escape(b.items.front()) + "\">") + xml_escape(b.text) +
             "</p>\n";
        break;
      case Block::Kind::list:
        o += "<ul>\n";
        for (const auto& i : b.items) o += "<li>" + xml_escape(i) + "</li>\n";
        o += "</ul>\n";
        break;
      case Block::Kind::table:
        o += "<div class=\"wide\"><table>\n";  // a wide table scrolls, the page does not
        if (!b.text.empty()) o += "<caption>" + xml_escape(b.text) + "</caption>\n";
        for (size_t r = 0; r < b.rows.size(); ++r) {
          o += "<tr>";
          for (const auto& c : b.rows[r])
            o += (r == 0 ? "<th scope=\"col\">" : "<td>") + xml_escape(c) + (r == 0 ? "</th>" : "</td>");
          o += "</tr>\n";
        }
        o += "</table></div>\n";
        break;
      case Block::Kind::plot:
        if (!in_plots) o += "<div class=\"plots\">\n", in_plots = true;
        o += b.svg;
        break;
    }
  }
  if (in_plots) o += "</div>\n";
  return o + "</body></html>\n";
}

std::string jtext(const nlohmann::json& j, const char* pointer) {
  nlohmann::json::json_pointer p(pointer);
  if (!j.contains(p)) return "not recorded";
  const auto& v = j.at(p);
  if (v.is_string()) return v.get<std::string>().empty() ? "not available" : v.get<std::string>();
  return v.dump();
}

// "on"/"off" for a recorded boolean, "not recorded" for a run made before it was.
std::string flag(const nlohmann::json& j, const char* pointer, const char* on, const char* off) {
  nlohmann::json::json_pointer p(pointer);
  if (!j.contains(p) || !j.at(p).is_boolean()) return "not recorded";
  return j.at(p).get<bool>() ? on : off;
}

}  // namespace

// "How this was measured", from the provenance the run recorded.
std::vector<std::string> method_items(const nlohmann::json& env) {
  std::vector<std::string> items = {
      "Topology " + jtext(env, "/topology_file") + ", backend " + jtext(env, "/backend") +
          "; every product on a topology built from nothing and torn down after it.",
      "Overlay " + jtext(env, "/overlay/subnet") + ", MTU " + jtext(env, "/overlay/mtu") + ", port " +
          jtext(env, "/overlay/port") + ": the same addresses, port, MTU and key material for every product.",
      jtext(env, "/bench/samples") + " samples of " + jtext(env, "/bench/duration_s") +
          " s per product and test after a " + jtext(env, "/bench/warmup_s") + " s warm-up (discarded); order: " +
          flag(env, "/bench/interleaved", "interleaved rounds (A B C, A B C, ...)", "one product after the other") +
          ".",
      "Pinning " + flag(env, "/bench/pinned", "on", "off") + ", receive packet steering " +
          flag(env, "/bench/rps", "on", "off") + ", data-plane threads: " + jtext(env, "/bench/threads") + ".",
      "Kernel " + jtext(env, "/kernel/release") + "; CPU " + jtext(env, "/cpu/model") + " x " +
          jtext(env, "/cpu/count") + " (AES-NI " + jtext(env, "/cpu/aes_ni") + ", SMT " +
          jtext(env, "/cpu/smt_active") + ", governor " + jtext(env, "/cpu/governor") + ").",
      "vpnlab " + jtext(env, "/vpnlab_version") + ", run started " + jtext(env, "/started") + ".",
      "A row is valid only if every VPN node it crossed carried iperf3's bytes on its overlay interface, its links to "
      "the other VPN nodes and the "
      "product's own counters; once per product the underlay was watched for the payload in clear.",
  };
  // Guests: which accelerator (results of different ones are never compared), their
  // kernel, boot-to-ready time, and what this version does not measure in them.
  if (env.contains("guests")) {
    std::string boots;
    for (const auto& g : env["guests"])
      boots += (boots.empty() ? "" : ", ") + g.value("node", std::string("?")) + " " +
               number_text("{:.1f}", g.value("boot_s", 0.0)) + " s";
    items.push_back("Guests: accelerator " + jtext(env, "/accel") + "; guest kernel " +
                    env["guests"][0].value("kernel", std::string("?")) +
                    "; boot to agent-ready (first round): " + boots + ".");
    if (env.contains("vm_limits")) items.push_back("Not measured: " + jtext(env, "/vm_limits") + ".");
  }
  if (std::string line = sampling_line(env); !line.empty()) items.push_back("Adaptive " + line + ".");
  if (env.contains("shaped_links"))
    for (const auto& l : env["shaped_links"])
      items.push_back("Shaped link " + l.value("link", std::string("?")) + ": " +
                      number_text("{:.1f}", l.value("rate_bps", 0.0) / 1e6) + " Mbit/s, token bucket " +
                      number_text("{:.0f}", l.value("burst_bytes", 0.0)) + " B, queue limit " +
                      number_text("{:.0f}", l.value("limit_bytes", 0.0)) + " B (TBF on " +
                      l.value("where", std::string("each end")) + ").");
  if (env.contains("impaired_links"))
    for (const auto& l : env["impaired_links"]) {
      const std::string profile = l.value("profile", std::string());
      const nlohmann::json* achieved = nullptr;  // what the link did (lab/run/achieved_path.h)
      if (auto all = env.find("achieved_paths"); all != env.end() && all->is_object())
        if (auto it = all->find(l.value("link", std::string())); it != all->end()) achieved = &*it;
      items.push_back(
          "Impaired link " + l.value("link", std::string("?")) + (profile.empty() ? "" : " (profile " + profile + ")") +
          ": delay " + number_text("{:.1f}", l.value("delay_ms", 0.0)) + " ms" +
          (l.value("jitter_ms", 0.0) > 0 ? " +- " + number_text("{:.1f}", l.value("jitter_ms", 0.0)) + " ms" +
                                               (l.value("reorder", false) ? " (may reorder)" : " (in order)")
                                         : std::string()) +
          ", loss " + number_text("{:.2f}", l.value("loss_pct", 0.0)) + " % each way, on the " +
          l.value("where", std::string("egress of every end")) + "; " +
          (achieved ? "achieved on the baseline's path (" + achieved->value("from", std::string("?")) + " to " +
                          achieved->value("to", std::string("?")) +
                          ", before any product): " + achieved_text(*achieved) + "."
                    : std::string("as asked, not measured (the run ended before its first lab was built).")));
    }
  if (env.contains("pinning_notes"))
    for (const auto& n : env["pinning_notes"]) items.push_back("Pinning: " + n.get<std::string>());
  if (env.contains("pinning_warnings"))
    for (const auto& n : env["pinning_warnings"]) items.push_back("Pinning, warning: " + n.get<std::string>());
  for (const auto& line : host_items(env)) items.push_back(line);
  if (env.contains("products"))
    for (const auto& [name, p] : env["products"].items())
      items.push_back(
          name + ": " + p.value("version", std::string("?")) + ", cipher " + p.value("cipher", std::string("?")) +
          (p.value("threads_knob", std::string()).empty() ? ""
                                                          : ", threads: " + p.value("threads_knob", std::string())));
  return items;
}

namespace {

// The per-test table: the throughput columns, every tabled metric (metrics.h) as
// "HEAD (95 %)" with "over baseline" and the CPU split after CPU-s/Gbit, then retransmits,
// bring-up and the valid count.
std::vector<std::string> result_header() {
  std::vector<std::string> heads{"product", "test", "Gbit/s", "95 % interval", "CV", "x baseline (95 %)"};
  for (const MetricColumn* m : tabled_metrics()) {
    heads.push_back(m->table_head + " (95 %)");
    if (m->key == "cpu_s_per_gbit") heads.insert(heads.end(), {"over baseline", "user/sys/softirq s"});
  }
  heads.insert(heads.end(), {"retransmits", "bring-up s", "valid"});
  return heads;
}

// "1.23 (1.10-1.40)": the median and its 95 % interval ("*": covers less), "-" without samples.
std::string with_interval(const SampleStats& s, const char* f, double scale = 1) {
  if (s.n == 0) return "-";
  return number_text(f, s.median / scale) + " (" + number_text(f, s.ci_low / scale) + "-" +
         number_text(f, s.ci_high / scale) + (s.coverage < 0.95 ? "*" : "") + ")";
}

std::vector<std::string> result_row(const ProductTestSummary& s) {
  std::string valid = std::to_string(s.gbps.n) + "/" + std::to_string(s.rows);
  if (s.gbps.n == 0) {
    std::vector<std::string> cells(result_header().size(), "-");
    cells[0] = s.product, cells[1] = s.test, cells.back() = valid;
    return cells;
  }
  std::string ratio = s.product == "baseline" ? "1" : ratio_interval_text(s.baseline_ratio);
  std::vector<std::string> cells{s.product,
                                 s.test,
                                 number_text("{:.3f}", s.gbps.median),
                                 number_text("{:.3f}", s.gbps.ci_low) + "-" + number_text("{:.3f}", s.gbps.ci_high) +
                                     (s.gbps.coverage < 0.95 ? "*" : ""),
                                 number_text("{:.1f}%", 100 * s.gbps.cv),
                                 ratio};
  for (const MetricColumn* m : tabled_metrics()) {
    cells.push_back(with_interval(s.metric(m->key), m->format.c_str(), m->scale));
    if (m->key != "cpu_s_per_gbit") continue;
    cells.push_back(s.product == "baseline" || s.cpu_over_baseline == 0 ? "-"
                                                                        : number_text("{:+.2f}", s.cpu_over_baseline));
    cells.push_back(number_text("{:.2f}", s.metric("cpu_user_s").median) + "/" +
                    number_text("{:.2f}", s.metric("cpu_sys_s").median) + "/" +
                    number_text("{:.2f}", s.metric("cpu_softirq_s").median));
  }
  cells.push_back(s.metric("retransmits").n ? number_text("{:.0f}", s.metric("retransmits").median) : "-");
  cells.push_back(s.metric("bringup_s").n ? number_text("{:.2f}", s.metric("bringup_s").median) : "-");
  cells.push_back(valid);
  return cells;
}

}  // namespace

std::vector<std::pair<double, double>> throughput_over_time(const std::string& run_dir, const std::string& product,
                                                            const std::string& test, int sample) {
  std::vector<std::string>
      suffixes;  // one iperf3 process, or one file per process (at most one per CPU a node may have)
  if (std::filesystem::exists(raw_sample_file(run_dir, product, test, sample, kIperfSuffix)))
    suffixes.push_back(kIperfSuffix);
  for (int k = 1; k <= 4096 && std::filesystem::exists(raw_sample_file(run_dir, product, test, sample,
                                                                       "-p" + std::to_string(k) + kIperfSuffix));
       ++k)
    suffixes.push_back("-p" + std::to_string(k) + kIperfSuffix);
  std::map<size_t, std::pair<double, double>> by_interval;  // index -> (end time, Gbit/s)
  for (const auto& suffix : suffixes) {
    auto j = parse_json_bounded(read_raw_sample(run_dir, product, test, sample, suffix));
    if (j.is_discarded() || !j.contains("intervals")) continue;
    // iperf3's own output, kept raw: a file of another shape (cut short, another version)
    // only loses its over-time plot; the figures come from results.csv.
    try {
      std::map<size_t, std::pair<double, double>> from_file;
      size_t i = 0;
      for (const auto& iv : j.at("intervals")) {
        double gbps = iv.value("sum", nlohmann::json::object()).value("bits_per_second", 0.0) / 1e9;
        if (iv.contains("sum_bidir_reverse")) gbps += iv["sum_bidir_reverse"].value("bits_per_second", 0.0) / 1e9;
        from_file[i++] = {iv.value("sum", nlohmann::json::object()).value("end", 0.0), gbps};
      }
      for (const auto& [k, v] : from_file) {
        auto& slot = by_interval[k];
        slot.first = std::max(slot.first, v.first);
        slot.second += v.second;
      }
    } catch (const nlohmann::json::exception&) {
      continue;
    }
  }
  std::vector<std::pair<double, double>> out;
  for (const auto& [i, v] : by_interval) out.push_back(v);
  return out;
}

namespace {

// Sections as blocks, their plots written to run_dir/plots.
Status append_sections(const OutDir& plots, const std::vector<KindSection>& sections, std::vector<Block>* doc) {
  for (const auto& k : sections) {
    doc->push_back({Block::Kind::heading, k.heading, {}, {}, {}});
    if (!k.table.empty()) doc->push_back({Block::Kind::table, k.caption, {}, k.table, {}});
    doc->push_back({Block::Kind::para, k.note, {}, {}, {}});
    for (const auto& [name, svg] : k.plots) {
      if (auto s = plots.write(name, svg); !s) return s;
      doc->push_back({Block::Kind::plot, name, {}, {}, svg});
    }
  }
  return ok_status();
}

}  // namespace

Status write_sections_report(const std::string& dir, const std::string& title,
                             const std::vector<KindSection>& sections) {
  auto out = OutDir::open(dir);
  if (!out) return out.error();
  auto plots = out->subdir("plots");
  if (!plots) return plots.error();
  std::vector<Block> doc = {{Block::Kind::heading, title, {"title"}, {}, {}}};
  if (auto s = append_sections(*plots, sections, &doc); !s) return s;
  if (auto s = out->write("report.md", markdown(doc)); !s) return s;
  return out->write("report.html", html(doc, title));
}

// What the report opens on: per test the fastest and the cheapest tunnel over their
// runner-up (then the warnings, then every tunnel over the first one: append_pairwise).
void append_conclusion(const std::vector<SampleRow>& rows, std::vector<Block>* doc) {
  if (auto concl = conclude(rows); !concl.empty()) {
    doc->push_back({Block::Kind::heading, "Conclusion", {}, {}, {}});
    Block table{Block::Kind::table,
                "Per test: the leading tunnel over the runner-up, round-paired",
                {},
                {{"test", "leader", "over the runner-up"}},
                {}};
    for (const auto& c : concl)
      for (const auto& l : c.leaders)
        table.rows.push_back({&l == &c.leaders.front() ? c.test : "",
                              l.per_transaction && l.kind != "fastest" ? "cheapest per tx" : l.kind,
                              leader_sentence(l)});
    doc->push_back(table);
    doc->push_back({Block::Kind::para,
                    "Tunnels only (the baselines are the reference, not contenders). Each kind of line is one family: "
                    "its intervals cover "
                    "together with 95 % (each at 1 - 5 %/N), and 'significant' means the interval excludes 1.",
                    {},
                    {},
                    {}});
  }
}

// Every tunnel over the first one (or --vs), with a chart per test on a log axis.
Status append_pairwise(const std::vector<SampleRow>& rows, const ResultView& view,
                       const std::map<std::string, int>& color, const OutDir& plots, std::vector<Block>* doc) {
  PairwiseSection pw = pairwise_section(rows, view.vs);
  if (pw.reference.empty()) return Ok{};
  doc->push_back({Block::Kind::heading, "Product vs product: each over " + pw.reference, {}, {}, {}});
  doc->push_back(
      {Block::Kind::para,
       "Ratio of each tunnel to " + pw.reference +
           " in the same rounds (geometric mean of the round-paired ratios, Student t "
           "interval; each metric's N intervals cover together with 95 %, each at 1 - 5 %/N; the verdict is what the "
           "interval "
           "says); costs: below 1 is cheaper. Highest ratio first. 'vpnlab compare RUN A B' gives both directions; "
           "'vpnlab report RUN --vs PRODUCT' another reference.",
       {},
       {},
       {}});
  doc->push_back({Block::Kind::table,
                  "Each tunnel over " + pw.reference + ", round-paired, intervals 95 % together",
                  {},
                  pw.rows,
                  {}});
  for (auto [test, bars] : pw.gbps_bars) {
    for (auto& b : bars) b.color = color_of(color, b.label);
    std::stable_sort(bars.begin(), bars.end(), [](const Bar& x, const Bar& y) { return x.value > y.value; });
    std::string name = test + "-pairwise.svg";
    // An rr/crr row's Gbit/s is its payload both ways: the ratio is one of transaction rates.
    // (A named copy: clang 14 cannot capture a structured binding.)
    const bool transactions = std::any_of(
        rows.begin(), rows.end(), [&, &t = test](const SampleRow& r) { return r.test == t && r.is_transactions(); });
    std::string svg = svg_bar_chart(
        test + (transactions ? ": transactions/s over " : ": Gbit/s over ") + pw.reference + " (round-paired)",
        "ratio to " + pw.reference, bars, {.log = true, .reference = 1, .dots = true});
    if (auto s = plots.write(name, svg); !s) return s;
    doc->push_back({Block::Kind::plot, name, {}, {}, svg});
  }
  return Ok{};
}

std::vector<std::string> audit_warnings(const nlohmann::json& audit) {
  std::vector<std::string> warnings;
  for (const auto& [product, a] : audit.items()) {
    for (const auto& l : a.value("leftovers", nlohmann::json::array()))
      warnings.push_back(product + ": teardown left " + l.get<std::string>());
    // Each failed attempt with its reason and logs; a run before they were kept: the count.
    const nlohmann::json failed = a.value("failed_bringups", nlohmann::json::array());
    for (const auto& f : failed)
      warnings.push_back(product + ": a bring-up failed and was tried again: " + f.get<std::string>());
    if (failed.empty() && whole_number_or(a, "bringups_retried", 0) > 0)
      warnings.push_back(product + ": " + std::to_string(whole_number_or(a, "bringups_retried", 0)) +
                         " bring-up(s) failed once and came up on a second try");
  }
  return warnings;
}

namespace {

std::vector<std::string> report_warnings(const std::vector<ProductTestSummary>& summaries,
                                         const std::vector<LinkShare>& shares, const nlohmann::json& audit) {
  std::vector<std::string> warnings = summary_warnings(summaries);
  for (const auto& w : link_share_warnings(shares)) warnings.push_back(w);
  for (const auto& w : audit_warnings(audit)) warnings.push_back(w);
  return warnings;
}

// One test's charts, gathered product by product from its summaries and rows.
struct TestSeries {
  std::vector<Bar> bars, ratios;
  std::vector<Series> over_time, cpu, strips, latency, memory;
  std::vector<StackedBar> cpu_parts;
};

void add_product_series(const std::string& run_dir, const std::vector<SampleRow>& rows, const ProductTestSummary& s,
                        int c, TestSeries* t) {
  t->bars.push_back({s.product, s.gbps.median, s.gbps.ci_low, s.gbps.ci_high, c});
  if (const RatioInterval& r = s.baseline_ratio;
      s.product != "baseline" && r.n > 0)  // one round has no bounds: its bar has no whisker
    t->ratios.push_back({s.product, r.ratio, r.n >= 2 ? r.low : r.ratio, r.n >= 2 ? r.high : r.ratio, c});
  Series scatter{s.product, {}, c}, strip{s.product, {}, c};
  std::vector<int> valid_samples;
  std::vector<double> user, sys, softirq;  // CPU-s per Gbit of each kind, per valid sample
  for (const auto& r : rows) {
    if (r.product != s.product || r.test != s.test || !counts_as_result(r)) continue;
    scatter.points.push_back({r.gbps, r.cpu_s});
    strip.points.push_back({r.sample, r.gbps});
    valid_samples.push_back(r.sample);
    if (const double gbit = r.gbps * r.duration_s; gbit > 0)
      user.push_back(r.cpu_user_s / gbit), sys.push_back(r.cpu_sys_s / gbit), softirq.push_back(r.cpu_softirq_s / gbit);
  }
  if (!user.empty())
    t->cpu_parts.push_back({s.product, {describe(user).median, describe(sys).median, describe(softirq).median}});
  // Every valid sample over time, faint, with their median bold: one sample is an anecdote.
  std::vector<std::vector<std::pair<double, double>>> gbps_by_sample, rss_by_sample;
  for (int sample : valid_samples) {
    gbps_by_sample.push_back(throughput_over_time(run_dir, s.product, s.test, sample));
    rss_by_sample.push_back(rss_over_time(run_dir, s.product, s.test, sample));
  }
  add_sample_lines(s.product, c, gbps_by_sample, &t->over_time);
  add_sample_lines(s.product, c, rss_by_sample, &t->memory);
  t->cpu.push_back(scatter);
  t->strips.push_back(strip);
  if (auto cdf = cdf_points(pooled_rtts(run_dir, s.product, s.test, valid_samples)); !cdf.empty())
    t->latency.push_back({s.product, cdf, c});
}

// The headline ratio chart first (when there is a baseline), then the others.
std::vector<std::pair<std::string, std::string>> test_plots(const std::string& test, TestSeries& t) {
  std::vector<std::pair<std::string, std::string>> plots;
  auto fastest_first = [](const Bar& x, const Bar& y) { return x.value > y.value; };  // the order a reader compares in
  if (!t.ratios.empty()) {
    std::stable_sort(t.ratios.begin(), t.ratios.end(), fastest_first);
    plots.push_back({test + "-vs-baseline.svg",
                     svg_bar_chart(test + ": ratio to the baseline (round-paired geometric mean, 95 % interval)",
                                   "x baseline", t.ratios, {.log = true, .reference = 1, .dots = true})});
  }
  std::stable_sort(t.bars.begin(), t.bars.end(), fastest_first);
  plots.push_back(
      {test + "-throughput.svg", svg_bar_chart(test + ": median throughput, 95 % interval", "Gbit/s", t.bars)});
  plots.push_back({test + "-over-time.svg", svg_line_chart(test + ": throughput over time, samples faint, median bold",
                                                           "seconds", "Gbit/s", t.over_time)});
  plots.push_back({test + "-cpu.svg",
                   svg_scatter(test + ": CPU vs throughput per sample", "Gbit/s", "CPU-seconds (all CPUs)", t.cpu)});
  plots.push_back({test + "-samples.svg", svg_strip_plot(test + ": every valid sample", "Gbit/s", t.strips)});
  plots.push_back({test + "-cpu-kinds.svg", svg_stacked_bars(test + ": CPU-s per Gbit by kind (median per sample)",
                                                             "CPU-s/Gbit", {"user", "sys", "softirq"}, t.cpu_parts)});
  // Runs that kept the probes' round trips (not guests, not older runs) also get their distribution.
  if (!t.memory.empty())
    plots.push_back(
        {test + "-memory.svg",
         svg_line_chart(test + ": daemons' RSS, busiest node: samples faint, median bold", "seconds", "MB", t.memory)});
  if (!t.latency.empty())
    plots.push_back(
        {test + "-latency-cdf.svg", svg_line_chart(test + ": round trip under load, CDF to the 99.5th percentile", "ms",
                                                   "fraction of probes", t.latency, 1.0)});
  return plots;
}

Status append_test(const std::string& run_dir, const std::vector<SampleRow>& rows,
                   const std::vector<ProductTestSummary>& summaries, const std::string& test,
                   std::map<std::string, int>& color, OutDir& plot_dir, std::vector<Block>* doc) {
  doc->push_back({Block::Kind::heading, "Test " + test, {}, {}, {}});
  Block table{Block::Kind::table,
              "Test " + test + ": medians of the valid samples with their 95 % intervals",
              {},
              {result_header()},
              {}};
  TestSeries series;
  for (const auto& s : summaries) {
    if (s.test != test) continue;
    table.rows.push_back(result_row(s));
    if (s.gbps.n > 0) add_product_series(run_dir, rows, s, color[s.product], &series);
  }
  doc->push_back(table);
  for (const auto& [name, svg] : test_plots(test, series)) {
    if (auto s = plot_dir.write(name, svg); !s) return s;
    doc->push_back({Block::Kind::plot, name, {}, {}, svg});
  }
  return ok_status();
}

void append_shaped_links(const std::vector<LinkShare>& shares, std::vector<Block>* doc) {
  if (shares.empty()) return;
  doc->push_back({Block::Kind::heading, "Shaped links: share of the rate and of what headers allow", {}, {}, {}});
  Block table{Block::Kind::table,
              "Shaped links: each product's share of the rate and of its header ceiling",
              {},
              {{"product", "test", "link", "Mbit/s", "of rate", "header ceiling Mbit/s", "of ceiling"}},
              {}};
  for (const auto& l : shares)
    table.rows.push_back(
        {l.product, l.test, l.link + " " + number_text("{:.1f}", l.rate_bps / 1e6) + " Mbit/s",
         l.median_bps > 0 ? number_text("{:.1f}", l.median_bps / 1e6) : "-",
         l.median_bps > 0 ? number_text("{:.1f} %", 100 * l.median_bps / l.rate_bps) : "-",
         l.ceiling_bps > 0 ? number_text("{:.1f}", l.ceiling_bps / 1e6) + " (MTU " + std::to_string(l.mtu) + ", +" +
                                 std::to_string(l.overhead) + " B)"
                           : l.note,
         l.ceiling_bps > 0 && l.median_bps > 0 ? number_text("{:.1f} %", 100 * l.median_bps / l.ceiling_bps) : "-"});
  doc->push_back(table);
  doc->push_back({Block::Kind::para,
                  "Header ceiling: the shaped rate times each packet's payload over its size on the link (inner IP/TCP "
                  "headers with timestamps, "
                  "the product's declared per-packet overhead, 14 B Ethernet) at the MTU it ran with.",
                  {},
                  {},
                  {}});
}

void append_host_cpu(const std::vector<SampleRow>& rows, std::vector<Block>* doc) {
  auto host_rows = host_cpu_rows(rows);
  if (host_rows.empty()) return;
  doc->push_back({Block::Kind::heading, "CPU per host", {}, {}, {}});
  doc->push_back({Block::Kind::para,
                  "CPU-s/Gbit in the tables is the sum over the machines that held the test's nodes; here each "
                  "machine's part. Hosts that "
                  "are one machine (the same boot id) are counted once, named together.",
                  {},
                  {},
                  {}});
  doc->push_back({Block::Kind::table, "CPU-s per Gbit by machine", {}, host_rows, {}});
}

void append_method(const nlohmann::json& env, std::vector<Block>* doc) {
  doc->push_back({Block::Kind::heading, "How this was measured", {}, {}, {}});
  doc->push_back({Block::Kind::list, "", method_items(env), {}, {}});
  doc->push_back({Block::Kind::para,
                  "Interval: distribution-free 95 % interval of the median (marked * where fewer than 6 samples cover "
                  "less). x baseline: median of "
                  "per-round ratios to 'baseline' with its interval. CPU: system-wide non-idle time over all CPUs per "
                  "Gbit moved, with the 95 % "
                  "interval of its median (as RSS, kpps and p99). kpps: packets per second the receiving node's "
                  "interface counted: for a tunnel "
                  "its inner packets, for the baseline the GRO/GSO-merged segments (up to 64 KB each), so baseline "
                  "kpps is not comparable with a "
                  "product's. Wire kpps: frames the receiving node's underlay carried, a merged segment counted as the "
                  "full-size frames it "
                  "stands for (bytes over MTU + 14): what a NIC would carry, comparable between products and the "
                  "baseline. Retransmits: TCP retransmits per sample (median). p99: ICMP round trip through the tunnel "
                  "every 10 ms during the sample.",
                  {},
                  {},
                  {}});
}

}  // namespace

Status write_report(const std::string& run_dir, const ResultView& view) {
  auto rows = read_results_csv(run_dir + "/results.csv");
  if (!rows) return rows.error();
  auto env = read_environment(run_dir, /*required=*/false);
  if (!env) return env.error();
  auto audit = read_audit(run_dir);
  if (!audit) return audit.error();
  std::vector<ProductTestSummary> summaries = in_reading_order(summarize(rows.value()), view.file_order);
  std::string run_id = rows->empty() ? jtext(*env, "/run_id") : rows->front().run_id;
  const std::vector<LinkShare> shares = link_shares(rows.value(), *env);
  std::vector<std::string> warnings = report_warnings(summaries, shares, *audit);
  if (emulated_run(*env)) warnings.insert(warnings.begin(), emulation_note(*env));
  if (auto note = meters_off_note(*env); !note.empty()) warnings.insert(warnings.begin(), note);
  std::vector<std::string> tests;
  std::map<std::string, int> color;  // one colour per product in every chart, in the order they ran
  for (const auto& r : rows.value()) color.emplace(r.product, static_cast<int>(color.size()));
  for (const auto& s : summaries)
    if (std::find(tests.begin(), tests.end(), s.test) == tests.end()) tests.push_back(s.test);
  // Everything is written below the run directory and nowhere else (a tampered run may hold
  // links where these files go: refused, never followed).
  auto out = OutDir::open(run_dir);
  if (!out) return out.error();
  auto plot_dir = out->subdir("plots");
  if (!plot_dir) return plot_dir.error();

  std::vector<Block> doc;
  doc.push_back({Block::Kind::heading, "vpnlab run " + run_id, {"title"}, {}, {}});
  if (std::string answer = answer_sentence(conclude(rows.value()), rows.value(), summaries); !answer.empty())
    doc.push_back({Block::Kind::para,
                   answer + (emulated_run(*env) ? " Under emulation: " + emulation_note(*env) + "." : ""),
                   {"answer"},
                   {},
                   {}});  // items: the paragraph's class
  append_conclusion(rows.value(), &doc);
  doc.push_back({Block::Kind::heading, "Warnings", {}, {}, {}});
  if (warnings.empty())
    doc.push_back(
        {Block::Kind::para,
         "None: every row valid, no high CV, no generator-bound sample, no outside load, nothing left behind.",
         {},
         {},
         {}});
  else
    doc.push_back({Block::Kind::list, "", warnings, {}, {}});
  if (auto s = append_pairwise(rows.value(), view, color, *plot_dir, &doc); !s) return s;
  for (const auto& test : tests)
    if (auto s = append_test(run_dir, rows.value(), summaries, test, color, *plot_dir, &doc); !s) return s;
  std::vector<KindSection> kinds = transaction_sections(rows.value(), run_dir, color);
  for (auto& k : udp_size_sections(rows.value(), color)) kinds.push_back(std::move(k));
  for (auto& k : sweep_sections(rows.value(), color)) kinds.push_back(std::move(k));
  if (auto effects = sweep_effects_section(rows.value(), color); !effects.table.empty())
    kinds.push_back(std::move(effects));
  if (auto hops = hop_cost_section(rows.value(), color); !hops.table.empty())
    kinds.insert(kinds.begin(), std::move(hops));
  if (auto s = append_sections(*plot_dir, kinds, &doc); !s) return s;
  append_shaped_links(shares, &doc);
  append_host_cpu(rows.value(), &doc);
  append_method(*env, &doc);
  if (auto s = out->write("report.md", markdown(doc)); !s) return s;
  return out->write("report.html", html(doc, "vpnlab run " + run_id));
}

}  // namespace vpnlab
