#include "lab/cli/schema_command.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "lab/cli/json_output.h"
#include "lab/record/column_docs.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

namespace {

const char* type_name(ColumnType t) {
  switch (t) {
    case ColumnType::text: return "text";
    case ColumnType::integer: return "integer";
    case ColumnType::real: return "real";
    case ColumnType::boolean: return "boolean";
  }
  return "text";
}

std::string results_csv_schema(SchemaFormat format) {
  const auto columns = results_csv_columns();
  const auto& docs = column_docs();
  if (format == SchemaFormat::json) {
    nlohmann::json cols = nlohmann::json::array();
    for (size_t i = 0; i < columns.size() && i < docs.size(); ++i)
      cols.push_back({{"name", columns[i].first}, {"type", type_name(columns[i].second)}, {"unit", docs[i].unit},
                      {"filled_by", docs[i].filled_by}, {"about", docs[i].about}});
    return nlohmann::json{{"schema", kJsonSchema}, {"name", "results.csv"}, {"columns", cols}}.dump(2) + "\n";
  }
  std::string out;
  if (format == SchemaFormat::markdown) {
    out = "| column | type | unit | filled by | meaning |\n|---|---|---|---|---|\n";
    for (size_t i = 0; i < columns.size() && i < docs.size(); ++i)
      out += "| `" + columns[i].first + "` | " + type_name(columns[i].second) + " | " + docs[i].unit + " | " + docs[i].filled_by + " | " +
             docs[i].about + " |\n";
    return out;
  }
  out = "results.csv: " + std::to_string(columns.size()) +
        " columns in this order, one row per sample (run --rows-jsonl streams the same names as JSON; an empty\n"
        "number is not measured)\n";
  char buf[160];
  snprintf(buf, sizeof buf, "%-18s %-8s %-11s %-17s %s\n", "COLUMN", "TYPE", "UNIT", "FILLED BY", "MEANING");
  out += buf;
  for (size_t i = 0; i < columns.size() && i < docs.size(); ++i) {
    snprintf(buf, sizeof buf, "%-18s %-8s %-11s %-17s ", columns[i].first.c_str(), type_name(columns[i].second), docs[i].unit, docs[i].filled_by);
    out += buf + std::string(docs[i].about) + "\n";
  }
  return out;
}

}  // namespace

Result<std::string> schema_text(const std::string& name, SchemaFormat format) {
  if (name.empty()) return std::string(format == SchemaFormat::json ? "{\n  \"names\": [\"results.csv\"],\n  \"schema\": 1\n}\n" : "results.csv\n");
  if (name == "results.csv") return results_csv_schema(format);
  return make_error("no schema named '" + name + "'", "known: results.csv");
}

}  // namespace vpnlab
