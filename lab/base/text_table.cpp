#include "lab/base/text_table.h"

#include <cstdlib>

#include "lab/base/terminal_text.h"

namespace vpnlab {

std::string TextTable::line(const std::vector<std::string>& cells) const {
  std::string out;
  for (size_t i = 0; i < widths_.size(); ++i) {
    // Cells hold what files and products said (run ids, versions, reasons): never raw controls.
    const std::string cell = i < cells.size() ? terminal_safe(cells[i]) : "";
    const size_t width = static_cast<size_t>(std::abs(widths_[i]));
    const std::string pad = cell.size() < width ? std::string(width - cell.size(), ' ') : "";
    if (i > 0) out += ' ';
    out += widths_[i] < 0 ? cell + pad : pad + cell;
  }
  return out + "\n";
}

}  // namespace vpnlab
