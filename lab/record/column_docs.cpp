#include "lab/record/column_docs.h"

#include "lab/record/figures.h"

namespace vpnlab {

const std::vector<ColumnDoc>& column_docs() {
  static const std::vector<ColumnDoc> docs = [] {
    std::vector<ColumnDoc> out;
    for (const auto& f : figures())
      out.push_back({f.name, f.unit, f.filled_by,
                     std::string(f.about) + (f.measured ? "; empty where the row did not measure it" : ""), f.since});
    return out;
  }();
  return docs;
}

}  // namespace vpnlab
