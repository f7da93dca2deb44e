#include "lab/base/terminal_text.h"

namespace vpnlab {

std::string terminal_safe(std::string_view text, bool keep_newlines) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto escape = [&](unsigned char c) { out += std::string("\\x") + hex[c >> 4] + hex[c & 15]; };
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (keep_newlines && (c == '\n' || c == '\t')) {
      out += static_cast<char>(c);
    } else if (keep_newlines && c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      // a CRLF line end (a guest's console) is a line end; a lone CR could hide a line
    } else if (c < 0x20 || c == 0x7f) {
      escape(c);
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 && static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      escape(c);  // U+0080..U+009F: the C1 controls (CSI is U+009B)
      escape(static_cast<unsigned char>(text[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace vpnlab
