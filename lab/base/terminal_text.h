// Text from files, hosts and products as a terminal may show it. Its own file (no libsodium
// behind it): Error::format uses it, so every program links it, the guest agent too, whose
// guest root has no libsodium.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace vpnlab {

// `text` safe to print on a terminal: C0 control characters, DEL and the C1 controls (as
// UTF-8) become \xNN, so a run id, version or reason read from a file cannot move the cursor,
// retitle the window or hide a line; so does every byte that is not part of well-formed UTF-8,
// so the output is always valid UTF-8. keep_newlines: '\n' and '\t' stay (a message's
// lines), and a CR before a newline is dropped (a console's CRLF); a lone CR is escaped.
std::string terminal_safe(std::string_view text, bool keep_newlines = false);

// The one rule for what is UTF-8, under terminal_safe and the terminal door alike: the length
// of the well-formed sequence of two to four bytes at text[i] (RFC 3629: no overlong form, no
// surrogate, nothing above U+10FFFF) and its code point; 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view text, size_t i, char32_t* code);

}  // namespace vpnlab
