// Small file helpers shared by the runner, the product sessions and the key store.
#pragma once
#include <sys/types.h>

#include <cstdint>

#include <string>

#include "lab/base/result.h"

namespace vpnlab {

// mkdir -p with `mode` for every directory it creates.
Status make_dirs(const std::string& path, mode_t mode);
// Writes `content` to `path` (created or truncated) with exactly `mode`.
Status write_file(const std::string& path, const std::string& content, mode_t mode);
// Writes a new version next to `path` and renames it over: the old content stays whole
// if the write fails (a full disk), for files that already hold something of value.
Status replace_file(const std::string& path, const std::string& content, mode_t mode);
// The whole file, or an error naming it and errno.
Result<std::string> read_whole_file(const std::string& path);
// The whole file, or "" if it cannot be read.
std::string read_file_text(const std::string& path);
// This boot of this machine (/proc/sys/kernel/random/boot_id): two hosts with the same one
// are one machine.
std::string boot_id();

// What one sample writes at most (iperf3 JSON of every process, logs, a row), with room.
inline constexpr uint64_t kSampleDiskReserve = 1u << 20;
// An error naming ENOSPC when the file system of `dir` has less than `need_bytes` (or
// almost no inodes) free for an unprivileged writer.
// The directory holding the running binary (from /proc/self/exe; "." if unknown): where an
// installed vpnlab finds its share/ and libexec/ directories.
std::string own_binary_dir();

Status check_free_space(const std::string& dir, uint64_t need_bytes = kSampleDiskReserve);

}  // namespace vpnlab
