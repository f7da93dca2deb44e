#include "lab/results/run_files.h"

#include <cerrno>

#include "lab/base/input_file.h"
#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"

namespace vpnlab {

namespace {

const char* type_name(JsonType t) {
  switch (t) {
    case JsonType::string:
      return "a string";
    case JsonType::number:
      return "a number";
    case JsonType::integer:
      return "a whole number";
    case JsonType::boolean:
      return "true or false";
    case JsonType::object:
      return "a table (JSON object)";
    case JsonType::array:
      return "a list (JSON array)";
  }
  return "?";
}

const char* found_name(const nlohmann::json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "a whole number";
  if (v.is_number()) return "a number";
  if (v.is_object()) return "a table";
  if (v.is_array()) return "a list";
  return "null";
}

bool has_type(const nlohmann::json& v, JsonType t) {
  switch (t) {
    case JsonType::string:
      return v.is_string();
    case JsonType::number:
      return v.is_number();
    case JsonType::integer:
      return v.is_number_integer() || v.is_number_unsigned();
    case JsonType::boolean:
      return v.is_boolean();
    case JsonType::object:
      return v.is_object();
    case JsonType::array:
      return v.is_array();
  }
  return false;
}

// Walks `parts` from `at`; `where` is the dotted path so far, for the message.
Status check_at(const nlohmann::json& at, const std::vector<std::string>& parts, size_t i, const std::string& where,
                JsonType type, const std::string& file) {
  if (i == parts.size()) {
    if (has_type(at, type)) return ok_status();
    return make_error(file + ": " + where + " is " + found_name(at) + ", expected " + type_name(type),
                      "the file was edited by hand or cut short: restore it from the run, or measure anew");
  }
  const std::string& key = parts[i];
  auto next = [&](const std::string& k) { return where.empty() ? k : where + "." + k; };
  if (key == "*") {
    if (at.is_object()) {
      for (const auto& [k, v] : at.items())
        if (auto s = check_at(v, parts, i + 1, next(k), type, file); !s) return s;
    } else if (at.is_array()) {
      for (size_t n = 0; n < at.size(); ++n)
        if (auto s = check_at(at[n], parts, i + 1, where + "[" + std::to_string(n) + "]", type, file); !s) return s;
    }
    return ok_status();
  }
  if (!at.is_object() || !at.contains(key)) return ok_status();  // absent: "not recorded"
  return check_at(at[key], parts, i + 1, next(key), type, file);
}

}  // namespace

Status check_json_fields(const nlohmann::json& j, const std::vector<JsonField>& fields, const std::string& file) {
  if (!j.is_object())
    return make_error(file + ": the top level is " + found_name(j) + ", expected a table", "restore it from the run");
  for (const auto& f : fields) {
    std::vector<std::string> parts;
    std::string p = f.pointer;
    for (size_t start = 1; start <= p.size();) {
      size_t end = p.find('/', start);
      if (end == std::string::npos) end = p.size();
      parts.push_back(p.substr(start, end - start));
      start = end + 1;
    }
    if (auto s = check_at(j, parts, 0, "", f.type, file); !s) return s;
  }
  return ok_status();
}

Result<nlohmann::json> read_json_file(const std::string& file, const std::vector<JsonField>& fields, bool required) {
  auto text = read_optional_input_file(file, kMaxRunJsonBytes);
  if (!text) return text.error();
  if (!*text) {
    if (!required) return nlohmann::json::object();
    return make_error(file + ": " + errno_text(ENOENT), "give a run directory made by 'vpnlab run'");
  }
  if (auto why = json_nesting_problem(**text); !why.empty())
    return make_error(file + ": " + why + ", not a file vpnlab wrote", "restore it from the run");
  nlohmann::json j = parse_json_bounded(**text);
  if (j.is_discarded())
    return make_error(file + ": not valid JSON", "the file was edited by hand or cut short: restore it from the run");
  if (auto s = check_json_fields(j, fields, file); !s) return s.error();
  return j;
}

namespace {

const std::vector<JsonField>& environment_fields() {
  static const std::vector<JsonField> fields = {
      {"/schema", JsonType::integer},
      {"/run_id", JsonType::string},
      {"/backend", JsonType::string},
      {"/topology_file", JsonType::string},
      {"/requested_products", JsonType::array},
      {"/requested_products/*", JsonType::string},
      {"/bench", JsonType::object},
      {"/bench/samples", JsonType::integer},
      {"/bench/duration_s", JsonType::number},
      {"/bench/warmup_s", JsonType::number},
      {"/bench/pinned", JsonType::boolean},
      {"/bench/interleaved", JsonType::boolean},
      {"/bench/rps", JsonType::boolean},
      {"/products", JsonType::object},
      {"/products/*", JsonType::object},
      {"/products/*/version", JsonType::string},
      {"/products/*/cipher", JsonType::string},
      {"/products/*/threads_knob", JsonType::string},
      {"/guests", JsonType::array},
      {"/guests/*", JsonType::object},
      {"/guests/*/node", JsonType::string},
      {"/guests/*/kernel", JsonType::string},
      {"/guests/*/boot_s", JsonType::number},
      {"/pinning_notes", JsonType::array},
      {"/pinning_notes/*", JsonType::string},
      {"/pinning_warnings", JsonType::array},
      {"/pinning_warnings/*", JsonType::string},
      {"/overlay", JsonType::object},
      {"/overlay/mtu", JsonType::integer},
      {"/products/*/tunnel", JsonType::boolean},
      {"/products/*/overhead_bytes", JsonType::integer},
      {"/shaped_links", JsonType::array},
      {"/shaped_links/*", JsonType::object},
      {"/shaped_links/*/link", JsonType::string},
      {"/shaped_links/*/rate_bps", JsonType::number},
      {"/shaped_links/*/burst_bytes", JsonType::number},
      {"/shaped_links/*/limit_bytes", JsonType::number},
      {"/shaped_links/*/mtu", JsonType::integer},
      {"/shaped_links/*/where", JsonType::string},
      {"/test_links", JsonType::object},
      {"/test_links/*", JsonType::array},
      {"/test_links/*/*", JsonType::string},
      {"/impaired_links", JsonType::array},
      {"/impaired_links/*", JsonType::object},
      {"/impaired_links/*/link", JsonType::string},
      {"/impaired_links/*/profile", JsonType::string},
      {"/impaired_links/*/delay_ms", JsonType::number},
      {"/impaired_links/*/jitter_ms", JsonType::number},
      {"/impaired_links/*/loss_pct", JsonType::number},
      {"/impaired_links/*/reorder", JsonType::boolean},
      {"/impaired_links/*/where", JsonType::string},
      {"/achieved_paths", JsonType::object},
      {"/achieved_paths/*", JsonType::object},
      {"/achieved_paths/*/from", JsonType::string},
      {"/achieved_paths/*/to", JsonType::string},
      {"/achieved_paths/*/not_measured", JsonType::string},
      {"/achieved_paths/*/sent", JsonType::integer},
      {"/achieved_paths/*/answered", JsonType::integer},
      {"/achieved_paths/*/reordered", JsonType::integer},
      {"/achieved_paths/*/rtt_min_ms", JsonType::number},
      {"/achieved_paths/*/rtt_p50_ms", JsonType::number},
      {"/achieved_paths/*/rtt_p99_ms", JsonType::number},
      {"/achieved_paths/*/loss_pct", JsonType::number},
      {"/achieved_paths/*/loss_low_pct", JsonType::number},
      {"/achieved_paths/*/loss_high_pct", JsonType::number},
      {"/achieved_paths/*/loss_level", JsonType::number},
      {"/achieved_paths/*/asked_rtt_ms", JsonType::number},
      {"/achieved_paths/*/asked_loss_pct", JsonType::number},
      {"/achieved_paths/*/departures", JsonType::array},
      {"/achieved_paths/*/departures/*", JsonType::string},
      {"/meters_off", JsonType::array},
      {"/meters_off/*", JsonType::string},
  };
  return fields;
}

}  // namespace

Status check_environment(const nlohmann::json& env, const std::string& file) {
  if (!env.is_object())
    return make_error(file + ": not a JSON object",
                      "the file was edited by hand or cut short: restore it from the run");
  if (auto s = check_json_fields(env, environment_fields(), file); !s) return s;
  if (env.contains("schema") && whole_number<int>(env["schema"]) != kEnvironmentSchema)
    return make_error(file + ": schema " + env["schema"].dump() + " is not one this vpnlab reads (" +
                          std::to_string(kEnvironmentSchema) + ")",
                      "use the vpnlab version that made the run");
  return ok_status();
}

Result<nlohmann::json> read_environment(const std::string& run_dir, bool required) {
  std::string file = run_dir + "/environment.json";
  auto env = read_json_file(file, environment_fields(), required);
  if (!env) return env;
  if (auto s = check_environment(*env, file); !s) return s.error();
  return env;
}

namespace {

const std::vector<JsonField>& audit_fields() {
  static const std::vector<JsonField> fields = {{"/*", JsonType::object},
                                                {"/*/leftovers", JsonType::array},
                                                {"/*/leftovers/*", JsonType::string},
                                                {"/*/bringups_retried", JsonType::integer},
                                                {"/*/failed_bringups", JsonType::array},
                                                {"/*/failed_bringups/*", JsonType::string}};
  return fields;
}

}  // namespace

Status check_audit(const nlohmann::json& audit, const std::string& file) {
  return check_json_fields(audit, audit_fields(), file);
}

Result<nlohmann::json> read_audit(const std::string& run_dir) {
  return read_json_file(run_dir + "/audit.json", audit_fields(), false);
}

}  // namespace vpnlab
