// Files that come from outside vpnlab's own hands — a topology, a product spec, every file of
// a run directory read back — are input: a tampered one may be a FIFO that never ends, a
// link to /dev/zero, or gigabytes long. They are read only as regular files under a size
// bound, checked before the first byte is read, so a bad file fails fast with its name.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "lab/base/result.h"

namespace vpnlab {

// Bounds per kind of input, each far above what vpnlab itself writes (stated in the README).
inline constexpr uint64_t kMaxTopologyBytes = 16ull << 20;   // a 1000-node generated mesh is ~0.3 MB
inline constexpr uint64_t kMaxRunFileBytes = 32ull << 20;    // results.csv: 1000 samples x 40 product-tests is ~20 MB
inline constexpr uint64_t kMaxRawSampleBytes = 16ull << 20;  // one iperf3 JSON, round-trip or RSS series
inline constexpr uint64_t kMaxRunJsonBytes = 4ull << 20;     // environment.json, audit.json: ~0.1 MB for 1000 nodes
inline constexpr uint64_t kMaxToolOutputBytes =
    1ull << 20;  // what a product's tool prints for a value (a key, counters, a ping line)

// The file's text, or an error naming it: not there (errno), not a regular file (a FIFO, a
// device, a directory), or larger than `max_bytes` (before reading, or grown while read).
// Never blocks on a FIFO: it is opened non-blocking and refused by its type.
Result<std::string> read_input_file(const std::string& path, uint64_t max_bytes);

// As read_input_file, but a file that does not exist is std::nullopt (an optional record).
// follow_link = false: a symbolic link at the last component is refused (a run directory's
// own files are never links).
Result<std::optional<std::string>> read_optional_input_file(const std::string& path, uint64_t max_bytes,
                                                            bool follow_link = true);

}  // namespace vpnlab
