// Typed reading of TOML tables with errors that name file:line:column and give a hint.
// Shared by the topology and product-spec parsers.
#pragma once
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "lab/base/bounds.h"
#include "lab/base/result.h"

namespace vpnlab {

SourcePos pos_of(const toml::node& n);

// "10s", "1.5s", "500ms", "2m" -> seconds.
std::optional<double> parse_duration(const std::string& text);
// A time budget, which may be hours: parse_duration's units and "h" ("15m", "2h").
std::optional<double> parse_budget(const std::string& text);
// A relative precision: "2%" or "0.02" -> 0.02 (no range checked).
std::optional<double> parse_precision(const std::string& text);

// "500M", "1G", "100mbit", "2gbit", "64k", "1000000" -> bits per second (SI prefixes).
std::optional<double> parse_rate(const std::string& text);

// Closest candidate within a small edit distance ("did you mean"), or empty.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// Builds errors that point into a TOML file (topology or product spec).
class TomlReader {
 public:
  explicit TomlReader(std::string file) : file_(std::move(file)) {}

  Error at(SourcePos pos, std::string message, std::string hint) const {
    Error e = make_error(std::move(message), std::move(hint));
    e.file = file_;
    e.line = pos.line;
    e.column = pos.column;
    return e;
  }
  Error at(const toml::node& n, std::string message, std::string hint) const {
    return at(pos_of(n), std::move(message), std::move(hint));
  }

  // Rejects keys the format does not know, suggesting the closest known one.
  Status only_keys(const toml::table& t, const std::string& what, const std::vector<std::string>& known) const {
    for (auto&& [key, value] : t) {
      std::string k(key.str());
      if (std::find(known.begin(), known.end(), k) != known.end()) continue;
      std::string guess = closest_match(k, known);
      std::string hint = guess.empty() ? "known keys here: " + join(known) : "did you mean '" + guess + "'?";
      return at(value, what + ": unknown key '" + k + "'", hint);
    }
    return ok_status();
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// The text as a TOML table; a syntax error points at its line and column.
Result<toml::table> parse_toml(const TomlReader& r, const std::string& text);

const char* type_name(const toml::node& n);
Status get_string(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                  std::string* out, bool required, SourcePos parent);
// Each table of an optional [[key]] array, in order, given to `each` (its first error ends
// the walk); anything else under `key` is "PREFIX'key' must be an array of tables" at its
// place, with `hint` ("write [[key]]" when empty).
Status for_each_table(const TomlReader& r, const toml::table& parent, const std::string& key,
                      const std::function<Status(const toml::table&)>& each, const std::string& prefix = "",
                      const std::string& hint = "");
Status get_int(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what, int* out,
               int min, int max);
Status get_bool(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what, bool* out);
Status get_string_list(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                       std::vector<std::string>* out, SourcePos* pos);
Status get_cpu_list(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                    std::vector<int>* out);
Status check_name(const TomlReader& r, SourcePos pos, const std::string& what, const std::string& name, size_t max_len);
Status get_duration(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                    double* out, double min_s, double max_s = kMaxAnySeconds);
// precision = "5%" (or 0.05), within kMinPrecision..kMaxPrecision.
Status get_precision(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                     std::optional<double>* out);

// sysctl = { "net/..." = "value" }: /proc/sys keys below net/ only (a namespace's own),
// in file order; `what` starts each message ("step", "variant 'x'").
Status parse_net_sysctls(const TomlReader& r, const toml::node& value, const std::string& what,
                         std::vector<std::pair<std::string, std::string>>* out);

}  // namespace vpnlab
