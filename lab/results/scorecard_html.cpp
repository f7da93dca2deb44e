// The scorecard's page, drawn from scorecard.json alone: every number on it is a number in
// that file, and every text from a run passes xml_escape (control bytes and bytes that are
// not UTF-8 shown as \xNN, markup escaped). No script, and nothing fetched: the style is in
// the page.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "lab/base/json_number.h"
#include "lab/base/xml_escape.h"
#include "lab/results/scorecard.h"

namespace vpnlab {

namespace {

using nlohmann::json;

bool has_shape(const json& p, const char* shape) {
  if (!p.contains("shapes") || !p["shapes"].is_array()) return false;
  for (const auto& s : p["shapes"])
    if (s.is_string() && s.get<std::string>() == shape) return true;
  return false;
}

std::string esc(const json& j) { return xml_escape(j.is_string() ? j.get<std::string>() : j.dump()); }

std::string num(double v) {
  if (std::fabs(v) >= 100) return fmt::format("{:.0f}", v);
  return std::fabs(v) >= 10 ? fmt::format("{:.1f}", v) : fmt::format("{:.3g}", v);
}

const char* kStyle =
    "body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #bbb;padding:.3em .6em;text-align:right}th{background:#eee}td.name{text-align:left}"
    ".tier1{background:#d8f0d8}.tier2{background:#fff3c8}.tier3{background:#fde0c8}.failed{background:#f6d0d0;text-"
    "align:left}"
    ".stale{color:#a00}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}small{color:#555}";

std::string cell_class(const json& c) {
  if (c.contains("failure")) return "failed";
  const int tier = whole_number_or(c, "tier", 0);
  return tier == 1 ? "tier1" : tier == 2 ? "tier2" : tier >= 3 ? "tier3" : "";
}

// What a hover shows: provenance and how to measure it again.
std::string cell_title(const json& c, const std::string& reproduce) {
  std::string t;
  if (c.contains("provenance")) {
    const json& p = c["provenance"];
    for (const char* k : {"version", "kernel", "date", "vpnlab"})
      if (p.contains(k)) t += std::string(k) + ": " + (p[k].is_string() ? p[k].get<std::string>() : p[k].dump()) + "\n";
    if (p.value("stale", false)) t += "stale: measured more than the horizon ago\n";
  }
  t += "run: " + c.value("run", "") + "\n" + reproduce;
  return xml_escape(t);
}

// "0.62 [0.60, 0.64]": the ratio to the baseline where there is one, else the value.
std::string cell_text(const json& c) {
  if (c.contains("failure")) return (c.value("not_run", false) ? "not run: " : "failed: ") + esc(c["failure"]);
  if (c.contains("ratio_to_baseline")) {
    const json& r = c["ratio_to_baseline"];
    return num(r["value"].get<double>()) + "× <small>[" + num(r["interval"][0].get<double>()) + ", " +
           num(r["interval"][1].get<double>()) + "]</small>";
  }
  return num(c["value"].get<double>()) + " <small>[" + num(c["interval"][0].get<double>()) + ", " +
         num(c["interval"][1].get<double>()) + "]</small>";
}

// The round-paired ratio to the baseline and its interval, which the verdict beside it reads.
std::string ratio_text(const json& c) {
  if (!c.contains("ratio_to_baseline")) return "";
  const json& r = c["ratio_to_baseline"];
  return num(r["value"].get<double>()) + " [" + num(r["interval"][0].get<double>()) + ", " +
         num(r["interval"][1].get<double>()) + "]";
}

// The first table: products x (scenario, test), Gbit/s cells only.
std::string overview(const json& card, const std::map<std::string, std::string>& reproduce) {
  std::vector<std::pair<std::string, std::string>> columns;
  std::vector<std::string> products;
  std::map<std::string, const json*> at;
  for (const auto& c : card["cells"]) {
    if (!c.value("headline", false)) continue;
    const auto col = std::make_pair(c.value("scenario", ""), c.value("test", "") + " · " + c.value("title", ""));
    if (std::find(columns.begin(), columns.end(), col) == columns.end()) columns.push_back(col);
    if (std::find(products.begin(), products.end(), c.value("product", "")) == products.end())
      products.push_back(c.value("product", ""));
    at[col.first + "\n" + col.second + "\n" + c.value("product", "")] = &c;
  }
  std::string h =
      "<h2>Scorecard</h2><p>Each cell: the test's headline figure (Gbit/s; transactions/s for rr and crr) over the "
      "no-tunnel "
      "baseline's in the same rounds (round-paired, 95 % interval), coloured by tier: the products of one tier cannot "
      "be told "
      "apart from its leader by the data. Hover a cell for its provenance and how to measure it "
      "again.</p><table><tr><th>product</th>";
  for (const auto& [s, t] : columns)
    h +=
        "<th><a href=\"#" + xml_escape(s) + "\">" + xml_escape(s) + "</a><br><small>" + xml_escape(t) + "</small></th>";
  h += "</tr>";
  for (const auto& p : products) {
    h += "<tr><td class=\"name\">" + xml_escape(p) + "</td>";
    for (const auto& [s, t] : columns) {
      auto it = at.find(s + "\n" + t + "\n" + p);
      if (it == at.end()) {
        h += "<td>–</td>";
        continue;
      }
      const json& c = *it->second;
      // The id names the cell as scorecard.json does: a reader (or a test) finds it.
      h += "<td id=\"" + xml_escape("cell-" + s + "-" + c.value("test", "") + "-" + p) + "\" class=\"" + cell_class(c) +
           "\" title=\"" + cell_title(c, reproduce.count(s) ? reproduce.at(s) : "") + "\">" + cell_text(c) + "</td>";
    }
    h += "</tr>";
  }
  return h + "</table>";
}

// Every sample as a dot on one axis from 0 to the largest of the test (no quartile invented).
std::string sample_strip(const json& c, double axis_max) {
  if (!c.contains("samples") || axis_max <= 0) return "";
  std::string svg = "<svg width=\"160\" height=\"14\" role=\"img\"><title>" + std::to_string(c["samples"].size()) +
                    " samples</title>"
                    "<line x1=\"2\" y1=\"7\" x2=\"158\" y2=\"7\" stroke=\"#ccc\"/>";
  for (const auto& v : c["samples"]) {
    const double x = 2 + 156 * std::clamp(v.get<double>() / axis_max, 0.0, 1.0);
    svg += "<circle cx=\"" + num(x) + "\" cy=\"7\" r=\"2.5\" fill=\"#336\" fill-opacity=\"0.6\"/>";
  }
  return svg + "</svg>";
}

// The cell's series by version from the history: a dot per run with its interval, on the
// series' own axis; a change point in red. Empty without a history of two runs or more.
std::string trend_strip(const json& c) {
  if (!c.contains("trend") || !c["trend"].contains("points")) return "";
  const json& pts = c["trend"]["points"];
  double lo = 0, hi = 0;
  for (const auto& p : pts) {
    hi = std::max(hi, p.value("high", 0.0));
    lo = lo == 0 ? p.value("low", 0.0) : std::min(lo, p.value("low", 0.0));
  }
  if (pts.size() < 2 || hi <= lo) return "";
  std::string title = c["trend"].value("metric", "") + " by version:";
  std::string svg;
  const double step = 150.0 / static_cast<double>(pts.size() - 1);
  auto y = [&](double v) { return 16 - 14 * (v - lo) / (hi - lo); };
  for (size_t i = 0; i < pts.size(); ++i) {
    const json& p = pts[i];
    const double x = 5 + step * static_cast<double>(i);
    const char* colour = p.value("change_point", false) ? "#c00" : "#336";
    svg += "<line x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(y(p.value("low", 0.0))) + "\" y2=\"" +
           num(y(p.value("high", 0.0))) + "\" stroke=\"" + colour + "\"/><circle cx=\"" + num(x) + "\" cy=\"" +
           num(y(p.value("value", 0.0))) + "\" r=\"2\" fill=\"" + colour + "\"/>";
    title += " " + p.value("version", "?") + "=" + num(p.value("value", 0.0)) +
             (p.value("change_point", false) ? " (change)" : "");
  }
  return "<svg width=\"160\" height=\"18\" role=\"img\"><title>" + xml_escape(title) + "</title>" + svg + "</svg>";
}

double largest_sample(const json& card, const std::string& scenario, const std::string& test) {
  double m = 0;
  for (const auto& c : card["cells"])
    if (c.value("scenario", "") == scenario && c.value("test", "") == test && c.contains("samples"))
      for (const auto& v : c["samples"]) m = std::max(m, v.get<double>());
  return m;
}

// A scenario's own section: every metric's ranking with tiers, its state and how to repeat it.
std::string scenario_section(const json& card, const json& sc) {
  const std::string name = sc.value("name", "");
  std::string h = "<h2 id=\"" + xml_escape(name) + "\">" + xml_escape(name) + "</h2><p>topology " +
                  esc(sc["topology"]) + "; state " + esc(sc["state"]);
  if (sc.contains("sampling")) h += "; sampling stopped: " + esc(sc["sampling"]["stopped"]);
  h += "</p>";
  if (!sc.value("error", "").empty()) h += "<pre class=\"failed\">" + esc(sc["error"]) + "</pre>";
  std::string last;
  double axis_max = 0;  // the samples' axis of the table being drawn: its test's largest sample
  for (const auto& c : card["cells"]) {
    if (c.value("scenario", "") != name) continue;
    const std::string key = c.value("test", "") + " / " + c.value("title", "");
    if (key != last) {
      axis_max = largest_sample(card, name, c.value("test", ""));
      h += (last.empty() ? "" : "</table>") + std::string("<h3>") + xml_escape(key) +
           "</h3><table><tr><th>tier</th><th>product</th><th>median</th><th>95 % "
           "interval</th><th>n</th><th>samples</th><th>× baseline</th>"
           "<th>vs baseline</th><th>version</th><th>date</th><th>trend</th></tr>";
      last = key;
    }
    const json p = c.contains("provenance") ? c["provenance"] : json::object();
    h += "<tr class=\"" + cell_class(c) + "\"><td>" +
         (c.contains("tier") ? std::to_string(whole_number_or(c, "tier", 0)) : "") + "</td><td class=\"name\">" +
         esc(c["product"]) + "</td>";
    if (c.contains("failure")) {
      h += "<td colspan=\"9\" class=\"failed\">" + cell_text(c) + "</td></tr>";
      continue;
    }
    h += "<td>" + num(c["value"].get<double>()) + "</td><td>[" + num(c["interval"][0].get<double>()) + ", " +
         num(c["interval"][1].get<double>()) + "]</td><td>" + std::to_string(whole_number_or<size_t>(c, "n", 0)) +
         "</td><td>" + sample_strip(c, axis_max) + "</td><td>" + ratio_text(c) + "</td><td>" +
         esc(c.value("verdict_vs_baseline", "")) + "</td><td>" + (p.contains("version") ? esc(p["version"]) : "") +
         "</td><td" + (p.value("stale", false) ? " class=\"stale\">stale " : ">") +
         (p.contains("date") ? esc(p["date"]) : "") + "</td><td>" + trend_strip(c) + "</td></tr>";
  }
  if (!last.empty()) h += "</table>";
  h += "<p>Reproduce:</p><pre>" + esc(sc.value("reproduce", "")) + "</pre>";
  // By hand: the commands that ran, per product (lab/results/hand_recipe.h).
  if (sc.contains("recipes") && sc["recipes"].is_object())
    for (const auto& [product, text] : sc["recipes"].items())
      if (text.is_string())
        h += "<details><summary>" + xml_escape(product) + " by hand</summary><pre>" + esc(text) + "</pre></details>";
  return h;
}

// What each product's spec declares, one row per feature; a row whose effect a scenario
// measures links to that scenario's section.
std::string feature_matrix(const json& card) {
  if (!card.contains("products") || card["products"].empty()) return "";
  struct Row {
    const char* title;
    const char* feature;  // the scenarios' `feature` that measures it ("" = none)
    std::string (*cell)(const json& p);
  };
  static const Row rows[] = {
      {"cipher", "", [](const json& p) { return xml_escape(p.value("cipher", "")); }},
      {"encrypted", "", [](const json& p) { return std::string(p.value("encrypted", true) ? "yes" : "no"); }},
      {"native relay", "relay", [](const json& p) { return std::string(has_shape(p, "relay") ? "yes" : "no"); }},
      {"multi-hop chain", "chain", [](const json& p) { return std::string(has_shape(p, "chain") ? "yes" : "no"); }},
      {"site-to-site", "site-to-site",
       [](const json& p) { return std::string(has_shape(p, "site-to-site") ? "yes" : "no"); }},
      {"mesh", "mesh", [](const json& p) { return std::string(has_shape(p, "mesh") ? "yes" : "no"); }},
      {"firewall rules", "firewall", [](const json&) { return std::string("the lab's nft rules apply to any"); }},
      {"largest MTU, overhead", "mtu",
       [](const json& p) {
         return std::to_string(whole_number_or(p, "max_mtu", 0)) + ", " +
                std::to_string(whole_number_or(p, "overhead", 0)) + " B";
       }},
      {"build", "", [](const json& p) { return xml_escape(p.value("origin", "")); }},
  };
  std::string h =
      "<h2>Features</h2><p>What each product declares (its product.toml); a row whose effect a scenario measures links "
      "to it.</p>"
      "<table><tr><th>feature</th>";
  for (const auto& [name, p] : card["products"].items()) h += "<th>" + xml_escape(name) + "</th>";
  h += "<th>measured in</th></tr>";
  for (const Row& r : rows) {
    h += "<tr><td class=\"name\">" + std::string(r.title) + "</td>";
    for (const auto& [name, p] : card["products"].items()) h += "<td class=\"name\">" + r.cell(p) + "</td>";
    std::string links;
    for (const auto& sc : card["scenarios"])
      if (*r.feature && sc.value("feature", "") == r.feature)
        links += (links.empty() ? "" : ", ") + std::string("<a href=\"#") + esc(sc["name"]) + "\">" + esc(sc["name"]) +
                 "</a>";
    h += "<td class=\"name\">" + links + "</td></tr>";
  }
  return h + "</table>";
}

}  // namespace

std::string scorecard_html(const json& card) {
  std::map<std::string, std::string> reproduce;
  for (const auto& sc : card["scenarios"]) reproduce[sc.value("name", "")] = sc.value("reproduce", "");
  std::string h = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + esc(card["suite"]) +
                  " scorecard</title><style>" + kStyle + "</style></head><body><h1>" + esc(card["suite"]) +
                  "</h1><p>Made " + esc(card["generated"]) + " from " + esc(card["file"]) +
                  " by vpnlab suite; every figure below is in scorecard.json beside this page and traces to the rows "
                  "of its run directory.</p>";
  h += overview(card, reproduce);
  for (const auto& sc : card["scenarios"]) h += scenario_section(card, sc);
  h += feature_matrix(card);
  return h + "</body></html>\n";
}

}  // namespace vpnlab
