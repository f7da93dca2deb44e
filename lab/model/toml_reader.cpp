#include "lab/model/toml_reader.h"

#include <cctype>
#include <cmath>

#include "lab/model/names.h"

namespace vpnlab {

SourcePos pos_of(const toml::node& n) {
  return SourcePos{static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column)};
}

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date/time";
  }
}

Status for_each_table(const TomlReader& r, const toml::table& parent, const std::string& key,
                      const std::function<Status(const toml::table&)>& each, const std::string& prefix,
                      const std::string& hint) {
  const toml::node* items = parent.get(key);
  if (!items) return ok_status();
  if (!items->is_array_of_tables())
    return r.at(*items, prefix + "'" + key + "' must be an array of tables",
                hint.empty() ? "write [[" + key + "]]" : hint);
  for (const auto& item : *items->as_array())
    if (auto s = each(*item.as_table()); !s) return s;
  return ok_status();
}

Status get_string(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                  std::string* out, bool required, SourcePos parent) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) return r.at(parent, what + ": missing key '" + key + "'", "add " + key + " = \"...\"");
    return ok_status();
  }
  if (!n->is_string())
    return r.at(*n, what + ": '" + key + "' must be a string, not " + type_name(*n), "write " + key + " = \"...\"");
  *out = n->as_string()->get();
  return ok_status();
}

Result<toml::table> parse_toml(const TomlReader& r, const std::string& text) {
  try {
    return toml::parse(text, r.file());
  } catch (const toml::parse_error& err) {
    return r.at(SourcePos{static_cast<int>(err.source().begin.line), static_cast<int>(err.source().begin.column)},
                "not valid TOML: " + std::string(err.description()), "fix the syntax at this position");
  }
}

Status get_int(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what, int* out,
               int min, int max) {
  const toml::node* n = t.get(key);
  if (!n) return ok_status();
  if (!n->is_integer())
    return r.at(*n, what + ": '" + key + "' must be an integer, not " + type_name(*n), "write " + key + " = <integer>");
  int64_t v = n->as_integer()->get();
  if (v < min || v > max)
    return r.at(*n, what + ": '" + key + "' = " + std::to_string(v) + " is out of range",
                "use a value from " + std::to_string(min) + " to " + std::to_string(max));
  *out = static_cast<int>(v);
  return ok_status();
}

Status get_bool(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what, bool* out) {
  const toml::node* n = t.get(key);
  if (!n) return ok_status();
  if (!n->is_boolean())
    return r.at(*n, what + ": '" + key + "' must be true or false, not " + type_name(*n), "write " + key + " = true");
  *out = n->as_boolean()->get();
  return ok_status();
}

Status get_string_list(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                       std::vector<std::string>* out, SourcePos* pos) {
  const toml::node* n = t.get(key);
  if (!n) return ok_status();
  if (pos) *pos = pos_of(*n);
  if (!n->is_array())
    return r.at(*n, what + ": '" + key + "' must be an array of strings", "write " + key + " = [\"a\", \"b\"]");
  out->clear();
  for (const auto& item : *n->as_array()) {
    if (!item.is_string())
      return r.at(item, what + ": '" + key + "' must contain strings, not " + type_name(item),
                  "write " + key + " = [\"a\", \"b\"]");
    out->push_back(item.as_string()->get());
  }
  return ok_status();
}

Status get_cpu_list(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                    std::vector<int>* out) {
  const toml::node* n = t.get(key);
  if (!n) return ok_status();
  if (!n->is_array())
    return r.at(*n, what + ": '" + key + "' must be an array of CPU numbers", "write " + key + " = [0]");
  for (const auto& item : *n->as_array()) {
    if (!item.is_integer() || item.as_integer()->get() < 0 || item.as_integer()->get() > 4095)
      return r.at(item, what + ": '" + key + "' must contain CPU numbers (0..4095)", "write " + key + " = [0, 1]");
    out->push_back(static_cast<int>(item.as_integer()->get()));
  }
  return ok_status();
}

Status check_name(const TomlReader& r, SourcePos pos, const std::string& what, const std::string& name,
                  size_t max_len) {
  if (!is_lab_name(name, max_len))
    return r.at(pos, what + " name '" + name + "' is invalid",
                "use 1 to " + std::to_string(max_len) + " characters from [a-z0-9-], not starting with '-'");
  return ok_status();
}

Status get_duration(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                    double* out, double min_s, double max_s) {
  const toml::node* n = t.get(key);
  if (!n) return ok_status();
  std::optional<double> d;
  if (n->is_string()) d = parse_duration(n->as_string()->get());
  if (!d) return r.at(*n, what + ": '" + key + "' is not a duration", "write " + key + " = \"10s\" (units: ms, s, m)");
  if (*d < min_s)
    return r.at(*n, what + ": '" + key + "' is too short",
                "use at least " + std::to_string(static_cast<int>(min_s)) + "s");
  if (*d > max_s)
    return r.at(*n, what + ": '" + key + "' is too long",
                "use at most " + std::to_string(static_cast<long>(max_s)) + "s");
  *out = *d;
  return ok_status();
}

Status get_precision(const TomlReader& r, const toml::table& t, const std::string& key, const std::string& what,
                     std::optional<double>* out) {
  const toml::node* n = t.get(key);
  if (!n) return ok_status();
  std::optional<double> p;
  if (n->is_string())
    p = parse_precision(n->as_string()->get());
  else if (n->is_floating_point())
    p = n->as_floating_point()->get();
  if (!p)
    return r.at(*n, what + ": '" + key + "' is not a precision",
                "write " + key + " = \"5%\" (the 95 % interval's half-width asked for)");
  if (*p < kMinPrecision || *p > kMaxPrecision)
    return r.at(*n, what + ": '" + key + "' is out of range", "use 0.1% to 50%");
  *out = p;
  return ok_status();
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    std::vector<size_t> prev(c.size() + 1), cur(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= word.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= c.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (word[i - 1] == c[j - 1] ? 0 : 1)});
      std::swap(prev, cur);
    }
    if (prev[c.size()] < best_d) {
      best_d = prev[c.size()];
      best = c;
    }
  }
  return best;
}

namespace {

// "1.5ms" -> 1.5 and "ms". False when there is no leading number.
bool number_and_unit(const std::string& text, double* value, std::string* unit) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return false;
  try {
    size_t used = 0;
    *value = std::stod(text.substr(0, i), &used);
    if (used != i) return false;
  } catch (...) {
    return false;
  }
  *unit = text.substr(i);
  return true;
}

}  // namespace

std::optional<double> parse_duration(const std::string& text) {
  double value = 0;
  std::string unit;
  if (!number_and_unit(text, &value, &unit) || unit.empty()) return std::nullopt;
  if (unit == "ms")
    value /= 1000;
  else if (unit == "m")
    value *= 60;
  else if (unit != "s")
    return std::nullopt;
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> parse_budget(const std::string& text) {
  if (text.size() > 1 && text.back() == 'h') {
    auto minutes = parse_duration(text.substr(0, text.size() - 1) + "m");
    if (!minutes) return std::nullopt;
    return *minutes * 60;
  }
  return parse_duration(text);
}

std::optional<double> parse_precision(const std::string& text) {
  const bool percent = !text.empty() && text.back() == '%';
  double value = 0;
  std::string unit;
  if (!number_and_unit(percent ? text.substr(0, text.size() - 1) : text, &value, &unit) || !unit.empty() ||
      !std::isfinite(value))
    return std::nullopt;
  return percent ? value / 100 : value;
}

std::optional<double> parse_rate(const std::string& text) {
  double value = 0;
  std::string unit;
  if (!number_and_unit(text, &value, &unit)) return std::nullopt;
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Bits per second, SI prefixes, as both iperf3 ("500M") and tc ("500mbit") write them.
  // tc's "mbps" means megabytes: refused rather than silently read as bits.
  if (unit.size() > 3 && unit.substr(unit.size() - 3) == "bit")
    unit.resize(unit.size() - 3);
  else if (unit.find("bps") != std::string::npos)
    return std::nullopt;
  if (unit == "k")
    value *= 1e3;
  else if (unit == "m")
    value *= 1e6;
  else if (unit == "g")
    value *= 1e9;
  else if (!unit.empty())
    return std::nullopt;
  if (!std::isfinite(value) || value <= 0) return std::nullopt;
  return value;
}

// A node's own network settings only: keys below net/ (a namespace's; anything else in
// /proc/sys is the host's), plain path characters, no "..", values without newlines.
Status parse_net_sysctls(const TomlReader& r, const toml::node& value, const std::string& what,
                         std::vector<std::pair<std::string, std::string>>* out) {
  const char* hint = "write sysctl = { \"net/ipv6/conf/default/disable_ipv6\" = \"0\" }";
  if (!value.is_table() || value.as_table()->empty())
    return r.at(value, what + ": 'sysctl' must be a table of keys and values", hint);
  for (auto&& [k, v] : *value.as_table()) {
    std::string key(k.str());
    // Normal form only: "net/netfilter/./nf_hooks_lwtunnel" or "net//netfilter/..." opens the
    // same file as the denied key, so no '.', '..' or empty component passes at all.
    const std::string inner = "/" + key + "/";
    bool plain = key.rfind("net/", 0) == 0 && inner.find("/./") == std::string::npos &&
                 inner.find("/../") == std::string::npos && inner.find("//") == std::string::npos &&
                 key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-./") == std::string::npos;
    if (!plain)
      return r.at(
          v, what + ": sysctl '" + key + "' is not a network namespace setting",
          "keys are /proc/sys paths below net/ (e.g. net/ipv6/conf/default/disable_ipv6): only those stay in the node");
    // Below net/ but one switch for the whole machine, though every namespace shows it.
    for (const char* host_wide : {"net/netfilter/nf_hooks_lwtunnel"})
      if (key == host_wide)
        return r.at(
            v, what + ": sysctl '" + key + "' is one switch for the whole machine, though every namespace shows it",
            "vpnlab changes nothing outside the lab's nodes: leave it out");
    if (!v.is_string() || v.as_string()->get().find_first_of("\n\r") != std::string::npos)
      return r.at(v, what + ": sysctl '" + key + "' must be a one-line string", hint);
    out->emplace_back(key, v.as_string()->get());
  }
  return ok_status();
}

}  // namespace vpnlab
