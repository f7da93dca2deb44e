// The terminal door: whatever goes in, what comes out has no control byte but newline and
// tab, no DEL, no C1 control and no invalid UTF-8; terminal_safe and the pages' xml_escape
// likewise.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/base/terminal_door.h"
#include "lab/base/terminal_text.h"
#include "lab/base/xml_escape.h"

namespace {

// Whether `s` is valid UTF-8 holding no C0 (but \n, \t), DEL or C1 control.
bool terminal_clean(const std::string& s, bool newlines) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(newlines && (c == '\n' || c == '\t'))) || c == 0x7f) return false;
      ++i;
      continue;
    }
    const int n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (int k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    if (c == 0xc2 && static_cast<unsigned char>(s[i + 1]) <= 0x9f) return false;
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  vpnlab::fuzz_check(terminal_clean(vpnlab::through_terminal_door(text), true),
                     "the door lets no control or broken UTF-8 through");
  vpnlab::fuzz_check(terminal_clean(vpnlab::terminal_safe(text), false),
                     "terminal_safe lets no control or broken UTF-8 through");
  vpnlab::fuzz_check(terminal_clean(vpnlab::terminal_safe(text, true), true),
                     "terminal_safe keeps only newlines and tabs");
  // The pages' escaper is terminal_safe's text with the markup escaped: no tag can open.
  const std::string xml = vpnlab::xml_escape(text);
  vpnlab::fuzz_check(terminal_clean(xml, true) && xml.find_first_of("<>\"'") == std::string::npos,
                     "xml_escape leaves no control or markup");
  return 0;
}
