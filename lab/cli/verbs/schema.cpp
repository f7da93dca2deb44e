// `vpnlab schema [NAME]`: the published data contract.
#include "lab/cli/verbs/schema.h"

#include <fmt/format.h>
#include <cstdio>
#include <iostream>

#include "lab/base/json_depth.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"
#include "lab/record/column_docs.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

namespace {

constexpr const char* kDraft = "https://json-schema.org/draft/2020-12/schema";
constexpr const char* kIdBase = "https://vpnlab.invalid/schemas/";  // .invalid: an id, never fetched

const char* type_name(ColumnType t) {
  switch (t) {
    case ColumnType::text:
      return "text";
    case ColumnType::integer:
      return "integer";
    case ColumnType::real:
      return "real";
    case ColumnType::boolean:
      return "boolean";
  }
  return "text";
}

nlohmann::json json_type_of(ColumnType t) {
  switch (t) {
    case ColumnType::text:
      return "string";
    case ColumnType::integer:
      return {"integer", "null"};
    case ColumnType::real:
      return {"number", "null"};
    case ColumnType::boolean:
      return {"boolean", "null"};
  }
  return "string";
}

std::string results_csv_schema(SchemaFormat format) {
  const auto columns = results_csv_columns();
  const auto& docs = column_docs();
  if (format == SchemaFormat::json) {
    nlohmann::json cols = nlohmann::json::array();
    for (size_t i = 0; i < columns.size() && i < docs.size(); ++i)
      cols.push_back({{"name", columns[i].first},
                      {"type", type_name(columns[i].second)},
                      {"unit", docs[i].unit},
                      {"filled_by", docs[i].filled_by},
                      {"about", docs[i].about},
                      {"since", docs[i].since}});
    return nlohmann::json{{"schema", kJsonSchema}, {"name", "results.csv"}, {"columns", cols}}.dump(2) + "\n";
  }
  std::string out;
  if (format == SchemaFormat::markdown) {
    out = "| column | type | unit | filled by | meaning |\n|---|---|---|---|---|\n";
    for (size_t i = 0; i < columns.size() && i < docs.size(); ++i)
      out += "| `" + columns[i].first + "` | " + type_name(columns[i].second) + " | " + docs[i].unit + " | " +
             docs[i].filled_by + " | " + docs[i].about + " |\n";
    return out;
  }
  out = "results.csv: " + std::to_string(columns.size()) +
        " columns in this order, one row per sample (run --rows-jsonl streams the same names as JSON; an empty\n"
        "number is not measured)\n";
  std::string buf = fmt::format("{:<18} {:<8} {:<11} {:<17} {}\n", "COLUMN", "TYPE", "UNIT", "FILLED BY", "MEANING");
  out += buf;
  for (size_t i = 0; i < columns.size() && i < docs.size(); ++i) {
    buf = fmt::format("{:<18} {:<8} {:<11} {:<17} ", columns[i].first, type_name(columns[i].second), docs[i].unit,
                      docs[i].filled_by);
    out += buf + std::string(docs[i].about) + "\n";
  }
  return out;
}

// A JSON Schema's title, for the list of names.
std::string title_of(std::string_view text) {
  auto j = parse_json_bounded(text);
  return j.is_object() ? j.value("title", std::string()) : std::string();
}

std::string names_text(SchemaFormat format) {
  const auto names = schema_names();
  if (format == SchemaFormat::json) return nlohmann::json{{"schema", kJsonSchema}, {"names", names}}.dump(2) + "\n";
  std::string out;
  std::string buf;
  auto line = [&](const std::string& name, const std::string& what) { out += fmt::format("{:<17} {}\n", name, what); };
  line("results.csv", "the columns of results.csv (--json: as a list; --markdown: a table)");
  line("rows.jsonl", "JSON Schema of one line of run --rows-jsonl");
  for (const auto& [name, text] : embedded_schemas()) line(std::string(name), "JSON Schema: " + title_of(text));
  return out;
}

}  // namespace

std::vector<std::string> schema_names() {
  std::vector<std::string> names = {"results.csv", "rows.jsonl"};
  for (const auto& [name, text] : embedded_schemas()) names.emplace_back(name);
  return names;
}

nlohmann::json rows_jsonl_schema() {
  const auto columns = results_csv_columns();
  const auto& docs = column_docs();
  nlohmann::json properties = nlohmann::json::object();
  nlohmann::json required = nlohmann::json::array();
  for (size_t i = 0; i < columns.size() && i < docs.size(); ++i) {
    std::string unit = docs[i].unit;
    std::string about = docs[i].about;
    properties[columns[i].first] = {{"type", json_type_of(columns[i].second)},
                                    {"description", about + (unit.empty() || unit == "-" ? "" : " (" + unit + ")")}};
    required.push_back(columns[i].first);
  }
  return {{"$schema", kDraft},
          {"$id", std::string(kIdBase) + "rows.jsonl"},
          {"title", "vpnlab run --rows-jsonl (one line)"},
          {"description",
           "One finished sample as run --rows-jsonl writes it, a line per sample: results.csv's columns by name, typed "
           "(a number not "
           "measured is null). Generated from the column table by `vpnlab schema rows.jsonl`."},
          {"type", "object"},
          {"properties", properties},
          {"required", required},
          {"additionalProperties", false}};
}

Result<std::string> schema_text(const std::string& name, SchemaFormat format) {
  if (name.empty()) {
    if (format == SchemaFormat::markdown)
      return make_error("the list of names has no Markdown form", "drop --markdown");
    return names_text(format);
  }
  if (name == "results.csv") return results_csv_schema(format);
  // The rest are JSON Schemas: the same text whether or not --json was given.
  if (format == SchemaFormat::markdown)
    return make_error("only results.csv has a Markdown form: '" + name + "' is a JSON Schema", "drop --markdown");
  if (name == "rows.jsonl") return rows_jsonl_schema().dump(2) + "\n";
  for (const auto& [known, text] : embedded_schemas())
    if (known == name) return std::string(text);
  std::string known;
  for (const auto& n : schema_names()) known += (known.empty() ? "" : ", ") + n;
  return make_error("no schema named '" + name + "'", "known: " + known);
}

namespace {

// schema NAME: the names the contract has; nothing after it.
std::optional<std::vector<std::string>> complete_schema_name(const std::vector<std::string>& positional) {
  if (!positional.empty()) return std::vector<std::string>();
  return schema_names();
}

int cmd_schema(const Args& a) {
  if (a.positional.size() > 1) return usage_error("schema", "give at most one name (vpnlab schema lists them)");
  if (a.json && a.markdown) return usage_error("schema", "--json and --markdown are two formats: give one");
  auto text = schema_text(a.positional.empty() ? "" : a.positional[0], a.json       ? SchemaFormat::json
                                                                       : a.markdown ? SchemaFormat::markdown
                                                                                    : SchemaFormat::text);
  if (!text) return fail(text.error());
  std::cout << *text;
  return 0;
}

}  // namespace

extern const Verb kSchemaVerb = {
    "schema",
    "schema [NAME] [--json|--markdown]",
    "The published data contract. 'schema results.csv': every column in file order with its type, unit, the tests\n"
    "that fill it and its meaning. Every other NAME prints a JSON Schema (draft 2020-12; installed in\n"
    "share/vpnlab/schemas): rows.jsonl (a line of run --rows-jsonl), summary.json, environment.json, and the --json\n"
    "document of run, plan, products, diff, compare, history, doctor and schema. Without a name, the names it knows.",
    {"--json", "--markdown"},
    cmd_schema,
    {},
    complete_schema_name};

}  // namespace vpnlab
