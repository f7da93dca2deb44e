// Small file helpers shared by the runner, the product sessions and the key store.
#pragma once
#include <sys/types.h>

#include <string>

#include "lab/result.h"

namespace vpnlab {

// mkdir -p with `mode` for every directory it creates.
Status make_dirs(const std::string& path, mode_t mode);
// Writes `content` to `path` (created or truncated) with exactly `mode`.
Status write_file(const std::string& path, const std::string& content, mode_t mode);
// The whole file, or "" if it cannot be read.
std::string read_file_text(const std::string& path);

}  // namespace vpnlab
