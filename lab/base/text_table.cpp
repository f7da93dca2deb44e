#include "lab/base/text_table.h"

#include <cstdlib>

namespace vpnlab {

std::string TextTable::line(const std::vector<std::string>& cells) const {
  std::string out;
  for (size_t i = 0; i < widths_.size(); ++i) {
    const std::string cell = i < cells.size() ? cells[i] : "";
    const size_t width = static_cast<size_t>(std::abs(widths_[i]));
    const std::string pad = cell.size() < width ? std::string(width - cell.size(), ' ') : "";
    if (i > 0) out += ' ';
    out += widths_[i] < 0 ? cell + pad : pad + cell;
  }
  return out + "\n";
}

}  // namespace vpnlab
