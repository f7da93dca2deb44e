#include "lab/history/history_page.h"

#include <fmt/format.h>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "lab/base/fs_util.h"
#include "lab/base/out_dir.h"
#include "lab/base/xml_escape.h"
#include "lab/history/detector.h"
#include "lab/history/history_check.h"
#include "lab/results/svg.h"

namespace vpnlab {

namespace {

std::string interval_text(const TrendPoint& p) {
  return p.n >= 2 ? "[" + history_figure(p.low) + ", " + history_figure(p.high) + "]" : "(one sample)";
}

std::string points_table(const std::vector<TrendPoint>& points, const std::string& caption) {
  std::string o = "<div class=\"wide\"><table>\n<caption>" + xml_escape(caption) +
                  "</caption>\n"
                  "<tr><th scope=\"col\">run</th><th scope=\"col\">started</th><th scope=\"col\">product</th><th "
                  "scope=\"col\">version</th>"
                  "<th scope=\"col\">n</th><th scope=\"col\">value</th><th scope=\"col\">95 % interval</th><th "
                  "scope=\"col\">level</th></tr>\n";
  for (const auto& p : points)
    o += "<tr><td>" + xml_escape(p.run_id) + "</td><td>" + xml_escape(p.started) + "</td><td>" + xml_escape(p.product) +
         "</td><td>" + xml_escape(p.version) + "</td><td>" + std::to_string(p.n) + "</td><td>" +
         history_figure(p.value) + "</td><td>" + interval_text(p) + "</td><td>" +
         (p.change_point ? "new level starts" : "") + "</td></tr>\n";
  return o + "</table></div>\n";
}

// "2026-12-03T14:05:09Z" -> seconds since the epoch; NaN when it is not that.
double utc_seconds(const std::string& iso) {
  std::tm tm{};
  const char* end = strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return end && *end == '\0' ? static_cast<double>(timegm(&tm)) : NAN;
}

std::string percent_text(double fraction) { return fmt::format("{:.1f} %", 100 * fraction); }

// What `vpnlab history check` says of the newest run, at the top of the page: its verdict
// and the smallest drop this history can see (a "no regression" from a history that
// cannot see 5 % says so).
std::string check_summary(const std::vector<Trend>& trends) {
  const CheckQuery query{"", "", trends.front().metric.key, 0.05};
  const CheckOutcome o = check_newest(trends, query, trends.front().metric);
  std::string verdict;
  if (o.exit_code == kExitNoHistory)
    return "<p class=\"check\">Latest check: no comparable history yet to judge the newest run by (exit 4).</p>\n";
  if (o.exit_code == kExitRegression) {
    verdict = "a regression";
    for (const auto& l : o.lines)
      if (l.result.regression)
        verdict += (verdict == "a regression" ? ": " : ", ") + l.product + " / " + l.test + " " + l.result.verdict;
    verdict += " (exit 3)";
  } else {
    verdict = "no regression beyond " + percent_text(query.threshold);
  }
  std::string seen = "this history detects changes of " + percent_text(o.detectable) + " or more";
  if (o.exit_code == kExitHistoryBlind)
    seen += ", so it cannot see the threshold: add runs or samples per run (exit 5)";
  return "<p class=\"check\">Latest check (run " + xml_escape(o.newest_run) +
         ", 'vpnlab history check'): " + xml_escape(verdict) + "; " + xml_escape(seen) + ".</p>\n";
}

}  // namespace

std::string point_label(const TrendPoint& p, bool by_version) {
  if (by_version) return p.version.empty() ? p.product : p.version;
  // "2026-12-03T14:05:09Z" -> "12-03 14:05"
  return p.started.size() >= 16 ? p.started.substr(5, 5) + " " + p.started.substr(11, 5) : p.started;
}

std::string history_page_html(const std::vector<Trend>& trends, const std::string& history_path, bool by_version) {
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>vpnlab history</title>\n"
      "<style>body{font-family:sans-serif;max-width:1360px;margin:2em auto;padding:0 "
      "12px;color:#222}table{border-collapse:collapse;margin:1em 0;font-size:13px}"
      "td,th{border:1px solid #ccc;padding:3px "
      "8px;text-align:right}td:nth-child(-n+4),th{text-align:left}th{background:#f4f4f4}"
      ".wide{overflow-x:auto}caption{text-align:left;font-style:italic}p.env{color:#555}p.check{font-size:17px;font-"
      "weight:bold}"
      "</style></head><body>\n<h1>vpnlab history</h1>\n" +
      (trends.empty() || by_version ? std::string() : check_summary(trends)) + "<p>" +
      // Its name only: a page is shared, and the path would say where the history lived on this machine.
      xml_escape(std::filesystem::path(history_path).filename().string()) +
      ": each point is one run's geometric mean of its valid samples with its 95 % interval (the band); a series holds "
      "only runs "
      "comparable with its newest (same machine, topology, pinning, MTU, kernel, CPU and sample length); points "
      "measured elsewhere "
      "are listed apart, never drawn in. A dashed red line marks where a new level starts (a change point: Student's "
      "t-test on log "
      "values, binary segmentation, 1 % over the splits tried).</p>\n";
  if (trends.empty()) o += "<p>No run in the history has figures for this question.</p>\n";
  for (const auto& t : trends) {
    const std::string title = t.product + " \u2014 " + t.test + " \u2014 " + t.metric.title;
    o += "<section>\n<h2>" + xml_escape(title) + "</h2>\n<p class=\"env\">environment: " + xml_escape(t.environment) +
         "</p>\n";
    std::vector<TrendMark> marks;
    size_t changes = 0;
    for (const auto& p : t.points) {
      TrendMark m{point_label(p, by_version),
                  p.run_id + " " + p.product + ": " + history_figure(p.value) + " " + interval_text(p),
                  p.value,
                  p.low,
                  p.high,
                  p.change_point};
      if (by_version)
        m.group = point_label(p, true);  // a version's runs side by side, named once
      else
        m.at = utc_seconds(p.started);
      marks.push_back(m);
      changes += p.change_point;
    }
    o += svg_trend_chart(title, by_version ? "version (its runs side by side)" : "when the run started (UTC)",
                         t.metric.title, marks);
    o += "<p>" + std::to_string(t.points.size()) + " comparable run(s); " +
         (changes ? std::to_string(changes) + " level change(s) marked" : std::string("no level change found")) +
         "</p>\n";
    o += points_table(t.points, "the points drawn");
    if (!t.apart.empty()) o += points_table(t.apart, "measured in other environments: not comparable, not drawn");
    o += "</section>\n";
  }
  return o + "</body></html>\n";
}

Result<std::string> write_history_page(const std::string& dir, const std::vector<Trend>& trends,
                                       const std::string& history_path, bool by_version) {
  if (auto s = make_dirs(dir, 0755); !s) return s.error();
  auto out = OutDir::open(dir);
  if (!out) return out.error();
  if (auto s = out->write("history.html", history_page_html(trends, history_path, by_version), 0644); !s)
    return s.error();
  return out->path() + "/history.html";
}

}  // namespace vpnlab
