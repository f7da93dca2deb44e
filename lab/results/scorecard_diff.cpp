#include "lab/results/scorecard_diff.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <optional>

#include "lab/base/json_number.h"
#include "lab/base/terminal_text.h"
#include "lab/results/run_files.h"

namespace vpnlab {

namespace {

using nlohmann::json;

struct Interval {
  double value = 0, low = 0, high = 0;
};

// A cell's value and interval; none for a failure cell or one a hand has broken.
std::optional<Interval> interval_of(const json& c) {
  const json& v = c.contains("value") ? c["value"] : json();
  const json& i = c.contains("interval") ? c["interval"] : json();
  if (!v.is_number() || !i.is_array() || i.size() != 2 || !i[0].is_number() || !i[1].is_number()) return std::nullopt;
  return Interval{v.get<double>(), i[0].get<double>(), i[1].get<double>()};
}

std::string key_of(const json& c) {
  return c.value("scenario", "") + "\n" + c.value("test", "") + "\n" + c.value("product", "") + "\n" +
         c.value("metric", "");
}

json cell_id(const json& c) {
  return {{"scenario", c.value("scenario", "")},
          {"test", c.value("test", "")},
          {"product", c.value("product", "")},
          {"metric", c.value("metric", "")}};
}

std::string fixed(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

Result<json> read_scorecard(const std::string& dir_or_file) {
  struct stat st {};
  const bool dir = ::stat(dir_or_file.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  const std::string file = dir ? dir_or_file + "/scorecard.json" : dir_or_file;
  auto j = read_json_file(file,
                          {{"/schema", JsonType::integer},
                           {"/suite", JsonType::string},
                           {"/cells", JsonType::array},
                           {"/cells/*/scenario", JsonType::string},
                           {"/cells/*/test", JsonType::string},
                           {"/cells/*/product", JsonType::string},
                           {"/cells/*/metric", JsonType::string},
                           {"/cells/*/higher_is_better", JsonType::boolean}},
                          /*required=*/true);
  if (!j) return make_error(j.error().message, "give a directory 'vpnlab suite' wrote, or its scorecard.json");
  if (!j->contains("cells"))
    return make_error(file + ": no 'cells': not a scorecard", "give a directory 'vpnlab suite' wrote");
  return j;
}

json scorecard_diff(const json& a, const json& b, const std::string& a_name, const std::string& b_name) {
  std::map<std::string, const json*> in_a;
  for (const auto& c : a["cells"]) in_a[key_of(c)] = &c;
  json out = {{"schema", kSuiteDiffSchema}, {"a", a_name}, {"b", b_name},
              {"changed", json::array()},   {"same", 0},   {"only_in_a", json::array()},
              {"only_in_b", json::array()}};
  int same = 0;
  std::map<std::string, bool> matched;
  for (const auto& cb : b["cells"]) {
    const std::string key = key_of(cb);
    auto it = in_a.find(key);
    if (it == in_a.end()) {
      out["only_in_b"].push_back(cell_id(cb));
      continue;
    }
    matched[key] = true;
    const auto ia = interval_of(*it->second), ib = interval_of(cb);
    if (!ia || !ib) {
      // A failure on one side and a value on the other is a change; failures on both are not.
      if (ia.has_value() != ib.has_value()) {
        json d = cell_id(cb);
        d["verdict"] = ib ? "now measured" : "now failing";
        d["failure"] = ib ? it->second->value("failure", "") : cb.value("failure", "");
        out["changed"].push_back(d);
      } else {
        ++same;
      }
      continue;
    }
    if (ia->low <= ib->high && ib->low <= ia->high) {
      ++same;
      continue;
    }
    const bool higher_better = cb.value("higher_is_better", true);
    const bool up = ib->value > ia->value;
    json d = cell_id(cb);
    d["title"] = cb.value("title", "");
    d["a"] = {{"value", ia->value}, {"interval", {ia->low, ia->high}}};
    d["b"] = {{"value", ib->value}, {"interval", {ib->low, ib->high}}};
    d["b_over_a"] = ia->value != 0 ? json(ib->value / ia->value) : json(nullptr);
    d["verdict"] = up == higher_better ? "better" : "worse";
    out["changed"].push_back(d);
  }
  for (const auto& ca : a["cells"])
    if (!matched.count(key_of(ca))) out["only_in_a"].push_back(cell_id(ca));
  out["same"] = same;
  return out;
}

std::string scorecard_diff_text(const json& d) {
  std::string t =
      "suite diff: A = " + terminal_safe(d.value("a", "")) + ", B = " + terminal_safe(d.value("b", "")) + "\n";
  t += std::to_string(d["changed"].size()) + " cell(s) changed beyond their intervals, " +
       std::to_string(whole_number_or(d, "same", 0)) + " within them\n";
  for (const auto& c : d["changed"]) {
    t += "  " +
         terminal_safe(c.value("scenario", "") + " / " + c.value("test", "") + " / " + c.value("product", "") + " / " +
                       c.value("metric", "")) +
         ": " + c.value("verdict", "");
    if (c.contains("a"))
      t += ", " + fixed(c["a"]["value"].get<double>()) + " [" + fixed(c["a"]["interval"][0].get<double>()) + ", " +
           fixed(c["a"]["interval"][1].get<double>()) + "] -> " + fixed(c["b"]["value"].get<double>()) + " [" +
           fixed(c["b"]["interval"][0].get<double>()) + ", " + fixed(c["b"]["interval"][1].get<double>()) + "]" +
           (c["b_over_a"].is_number() ? " (B/A " + fixed(c["b_over_a"].get<double>()) + ")" : "");
    else if (!c.value("failure", "").empty())
      t += ": " + terminal_safe(c.value("failure", ""));
    t += "\n";
  }
  for (const char* side : {"only_in_a", "only_in_b"})
    for (const auto& c : d[side])
      t += std::string("  ") + (std::string(side) == "only_in_a" ? "only in A: " : "only in B: ") +
           terminal_safe(c.value("scenario", "") + " / " + c.value("test", "") + " / " + c.value("product", "") +
                         " / " + c.value("metric", "")) +
           "\n";
  return t;
}

}  // namespace vpnlab
