#include "lab/history/history_page.h"

#include <cstdio>

#include "lab/base/fs_util.h"
#include "lab/base/out_dir.h"
#include "lab/base/xml_escape.h"
#include "lab/history/detector.h"
#include "lab/results/svg.h"

namespace vpnlab {

namespace {

std::string interval_text(const TrendPoint& p) { return p.n >= 2 ? "[" + history_figure(p.low) + ", " + history_figure(p.high) + "]" : "(one sample)"; }

std::string points_table(const std::vector<TrendPoint>& points, const std::string& caption) {
  std::string o = "<div class=\"wide\"><table>\n<caption>" + xml_escape(caption) + "</caption>\n"
                  "<tr><th scope=\"col\">run</th><th scope=\"col\">started</th><th scope=\"col\">product</th><th scope=\"col\">version</th>"
                  "<th scope=\"col\">n</th><th scope=\"col\">value</th><th scope=\"col\">95 % interval</th><th scope=\"col\">level</th></tr>\n";
  for (const auto& p : points)
    o += "<tr><td>" + xml_escape(p.run_id) + "</td><td>" + xml_escape(p.started) + "</td><td>" + xml_escape(p.product) + "</td><td>" +
         xml_escape(p.version) + "</td><td>" + std::to_string(p.n) + "</td><td>" + history_figure(p.value) + "</td><td>" + interval_text(p) + "</td><td>" +
         (p.change_point ? "new level starts" : "") + "</td></tr>\n";
  return o + "</table></div>\n";
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
      "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}table{border-collapse:collapse;margin:1em 0;font-size:13px}"
      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:nth-child(-n+4),th{text-align:left}th{background:#f4f4f4}"
      ".wide{overflow-x:auto}caption{text-align:left;font-style:italic}p.env{color:#555}</style></head><body>\n"
      "<h1>vpnlab history</h1>\n<p>" +
      xml_escape(history_path) +
      ": each point is one run's geometric mean of its valid samples with its 95 % interval (the band); a series holds only runs "
      "comparable with its newest (same machine, topology, pinning, MTU, kernel, CPU and sample length); points measured elsewhere "
      "are listed apart, never drawn in. A dashed red line marks where a new level starts (a change point: Student's t-test on log "
      "values, binary segmentation, 1 % over the splits tried).</p>\n";
  if (trends.empty()) o += "<p>No run in the history has figures for this question.</p>\n";
  for (const auto& t : trends) {
    const std::string title = t.product + " \u2014 " + t.test + " \u2014 " + t.metric.title;
    o += "<section>\n<h2>" + xml_escape(title) + "</h2>\n<p class=\"env\">environment: " + xml_escape(t.environment) + "</p>\n";
    std::vector<TrendMark> marks;
    size_t changes = 0;
    for (const auto& p : t.points) {
      marks.push_back({point_label(p, by_version), p.run_id + " " + p.product + ": " + history_figure(p.value) + " " + interval_text(p), p.value, p.low, p.high,
                       p.change_point});
      changes += p.change_point;
    }
    o += svg_trend_chart(title, by_version ? "version" : "run (UTC date and time)", t.metric.title, marks);
    o += "<p>" + std::to_string(t.points.size()) + " comparable run(s); " +
         (changes ? std::to_string(changes) + " level change(s) marked" : std::string("no level change found")) + "</p>\n";
    o += points_table(t.points, "the points drawn");
    if (!t.apart.empty()) o += points_table(t.apart, "measured in other environments: not comparable, not drawn");
    o += "</section>\n";
  }
  return o + "</body></html>\n";
}

Result<std::string> write_history_page(const std::string& dir, const std::vector<Trend>& trends, const std::string& history_path, bool by_version) {
  if (auto s = make_dirs(dir, 0755); !s) return s.error();
  auto out = OutDir::open(dir);
  if (!out) return out.error();
  if (auto s = out->write("history.html", history_page_html(trends, history_path, by_version), 0644); !s) return s.error();
  return out->path() + "/history.html";
}

}  // namespace vpnlab
