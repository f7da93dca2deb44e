// What each results.csv column means, for `vpnlab schema results.csv` and docs/output.md:
// its unit, which tests fill it, and a sentence. Read from the figure table (figures.h).
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

struct ColumnDoc {
  const char* name;
  const char* unit;       // "" for a name, a count or a flag
  const char* filled_by;  // "all", a test kind, "udp", "hosts backend", "[[chain]]"
  const char* about;
  const char* since;  // the vpnlab version that first wrote it
};

const std::vector<ColumnDoc>& column_docs();

}  // namespace vpnlab
