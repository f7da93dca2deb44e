// Text from files, hosts and products as a terminal may show it. Its own file (no libsodium
// behind it): Error::format uses it, so every program links it, the guest agent too, whose
// guest root has no libsodium.
#pragma once
#include <string>
#include <string_view>

namespace vpnlab {

// `text` safe to print on a terminal: C0 control characters, DEL and the C1 controls (as
// UTF-8) become \xNN, so a run id, version or reason read from a file cannot move the cursor,
// retitle the window or hide a line. keep_newlines: '\n' and '\t' stay (a message's lines),
// and a CR before a newline is dropped (a console's CRLF); a lone CR is escaped.
std::string terminal_safe(std::string_view text, bool keep_newlines = false);

}  // namespace vpnlab
