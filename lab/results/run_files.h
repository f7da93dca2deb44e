// Reading a run directory's JSON files (environment.json, audit.json) the way every
// reader needs them: a missing file is "not recorded", a file that is not JSON or holds a
// field of the wrong type (edited by hand, cut short) is an error naming the file and the
// field, never an exception that aborts vpnlab.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"
#include "lab/record/run_layout.h"  // kEnvironmentSchema

namespace vpnlab {

enum class JsonType { string, number, integer, boolean, object, array };

// A field by JSON pointer; "*" stands for every key of an object or item of an array:
// "/products/*/version".
struct JsonField {
  const char* pointer;
  JsonType type;
};

// Every field present in `j` that matches a pattern has the stated type.
Status check_json_fields(const nlohmann::json& j, const std::vector<JsonField>& fields, const std::string& file);

// `file` parsed and checked; a missing file gives an empty object, or an error if `required`.
Result<nlohmann::json> read_json_file(const std::string& file, const std::vector<JsonField>& fields, bool required);

// RUN/environment.json with the types of every field vpnlab reads back, and a schema this
// version knows.
Result<nlohmann::json> read_environment(const std::string& run_dir, bool required);
// The same checks on an environment held elsewhere (a history export's line), `file` naming it.
Status check_environment(const nlohmann::json& env, const std::string& file);
// RUN/audit.json: an object, per product "leftovers" (strings), "bringups_retried" and
// "failed_bringups" (one line per failed attempt: round, why, its logs).
Result<nlohmann::json> read_audit(const std::string& run_dir);
Status check_audit(const nlohmann::json& audit, const std::string& file);

}  // namespace vpnlab
