#include "lab/base/result.h"

#include <cstring>

#include <string.h>
#include "lab/base/terminal_text.h"

namespace vpnlab {

std::string Error::where_and_what() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
    out += ": ";
  }
  return out + message;
}

std::string Error::format() const {
  // What it names came from files, hosts and products: no control character reaches the
  // terminal raw (its own lines stay).
  std::string out = "vpnlab: error: " + terminal_safe(where_and_what(), /*keep_newlines=*/true);
  if (!hint.empty()) out += "\nhint: " + terminal_safe(hint, true);
  return out;
}

Error make_error(std::string message, std::string hint) {
  Error e;
  e.message = std::move(message);
  e.hint = std::move(hint);
  return e;
}

Error with_context(Error e, const std::string& context) {
  e.message = context + ": " + e.message;
  return e;
}

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  std::string text = strerror(err);
  if (name) text += std::string(" (") + name + ")";
  return text;
}

}  // namespace vpnlab
