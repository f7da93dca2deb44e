#include "lab/base/terminal_text.h"

namespace vpnlab {

size_t utf8_sequence(std::string_view text, size_t i, char32_t* code) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t n = 0;
  char32_t cp = 0, min = 0;
  if (lead >= 0xc2 && lead <= 0xdf)
    n = 2, cp = lead & 0x1f, min = 0x80;
  else if (lead >= 0xe0 && lead <= 0xef)
    n = 3, cp = lead & 0x0f, min = 0x800;
  else if (lead >= 0xf0 && lead <= 0xf4)
    n = 4, cp = lead & 0x07, min = 0x10000;
  else
    return 0;
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  *code = cp;
  return n;
}

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
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (char32_t cp = 0; size_t n = utf8_sequence(text, i, &cp)) {
      // U+0080..U+009F are the C1 controls (CSI is U+009B): escaped byte by byte.
      for (size_t k = 0; k < n; ++k) {
        if (cp <= 0x9f)
          escape(static_cast<unsigned char>(text[i + k]));
        else
          out += text[i + k];
      }
      i += n - 1;
    } else {
      escape(c);  // not UTF-8: a terminal would guess, and a page would show U+FFFD
    }
  }
  return out;
}

}  // namespace vpnlab
