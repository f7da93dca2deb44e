#include "lab/base/result.h"

#include <cstring>
#include <string.h>

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
  std::string out = "vpnlab: error: " + where_and_what();
  if (!hint.empty()) out += "\nhint: " + hint;
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
