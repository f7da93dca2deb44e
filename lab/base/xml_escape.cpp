#include "lab/base/xml_escape.h"

#include "lab/base/terminal_text.h"

namespace vpnlab {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  // The terminal door's escaping first: a control byte is not allowed in XML even as a
  // reference, and a page shows what the terminal shows (\x1b, not a box or nothing).
  for (char c : terminal_safe(text, /*keep_newlines=*/true)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace vpnlab
