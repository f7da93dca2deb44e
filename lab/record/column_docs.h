// What each results.csv column means, for `vpnlab schema results.csv` and the README: its
// unit, which tests fill it, and a sentence. The column table itself (name, type, how it
// is written and read) is results_csv.cpp's.
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

struct ColumnDoc {
  const char* name;
  const char* unit;       // "" for a name, a count or a flag
  const char* filled_by;  // "all", a test kind, "udp", "hosts backend", "[[chain]]"
  const char* about;
  // The vpnlab version that first wrote it. Every column so far came with 0.1.0, the first
  // package; one added later names its own release here.
  const char* since = "0.1.0";
};

const std::vector<ColumnDoc>& column_docs();

}  // namespace vpnlab
