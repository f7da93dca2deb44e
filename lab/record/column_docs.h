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
  std::string about;      // the figure's text, and when it can be unmeasured, that it is then empty
  const char* since;      // the vpnlab version that first wrote it
};

const std::vector<ColumnDoc>& column_docs();

}  // namespace vpnlab
