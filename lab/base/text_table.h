// A plain-text table as the summaries print them: per column a width (negative: left-
// aligned, 0: as wide as its text), cells one space apart, a cell wider than its column
// pushing the rest right (what printf's "%-20s %8s" did in each table's own format string).
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

class TextTable {
 public:
  explicit TextTable(std::vector<int> widths) : widths_(std::move(widths)) {}
  // One line, '\n'-terminated; missing cells are empty.
  std::string line(const std::vector<std::string>& cells) const;

 private:
  std::vector<int> widths_;
};

}  // namespace vpnlab
