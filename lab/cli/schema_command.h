// `vpnlab schema [NAME] [--json|--markdown]`: the published data contract. results.csv's
// columns: name, type, unit, which tests fill them, meaning (column_docs beside the column
// table). Without NAME, the names it knows.
#pragma once
#include <optional>
#include <string>

#include "lab/base/result.h"

namespace vpnlab {

enum class SchemaFormat { text, json, markdown };

// The text `schema NAME` prints; an error naming the known ones for another NAME.
Result<std::string> schema_text(const std::string& name, SchemaFormat format);

}  // namespace vpnlab
