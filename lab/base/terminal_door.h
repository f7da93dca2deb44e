// The one terminal door: everything the vpnlab binary writes through std::cout and std::cerr
// (tables, listings, messages, log lines) passes one filter, so a string that came from
// outside (a history's versions, a remote host's kernel, a run directory's names) cannot move
// the cursor, retitle the window or hide a line, whichever printing path it took. New code
// cannot forget it: the filter sits under the streams, not at each call.
//
// What it changes: C0 controls but '\n' and '\t', DEL and the C1 controls (U+0080..U+009F)
// become "\u00XX"; a byte that is not part of valid UTF-8 becomes "\ufffd". Both forms are
// also valid escapes inside a JSON string, so --json output stays JSON (nlohmann already
// escapes C0 there). Everything else passes unchanged. What counts as UTF-8 and as a control
// is terminal_safe()'s rule (terminal_text.h), which messages and pages use; only the written
// form differs, because this output may be inside a JSON string.
#pragma once
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

namespace vpnlab {

// The filter as a function: what `text` becomes on the terminal (for tests and one-off uses).
std::string through_terminal_door(std::string_view text);

// The filter as a streambuf over `below` (which it does not own).
std::unique_ptr<std::streambuf> terminal_door_over(std::streambuf* below);

// Puts the filter under std::cout and std::cerr for the rest of the process. The helpers
// whose stdout is a JSON-lines channel (the agents, vpnlab-vmhost) do not call it.
void install_terminal_door();

}  // namespace vpnlab
