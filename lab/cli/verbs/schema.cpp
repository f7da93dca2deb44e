// `vpnlab schema [NAME]`: the published data contract.
#include <iostream>

#include "lab/cli/schema_command.h"
#include "lab/cli/verbs/verb.h"

namespace vpnlab {
namespace {

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
    cmd_schema};

}  // namespace vpnlab
