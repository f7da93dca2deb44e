// Opening a relative path below a directory descriptor so that it cannot leave it: no
// symbolic link is followed on the way or at the end, no ".." climbs out, no absolute path
// starts over at /, no /proc magic link jumps elsewhere. openat2(2) with RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS does it in the kernel in one call; where the
// kernel has no openat2 (before 5.6) or a seccomp filter refuses it, the same walk is done one
// component at a time with O_NOFOLLOW on descriptors. Used where a multi-component name below
// a directory is opened without judging each component's owner (trusted_dir.h judges them
// and walks itself).
#pragma once
#include <sys/types.h>

#include <string>

#include "lab/base/unique_fd.h"

namespace vpnlab {

// Like openat(dirfd, rel, flags, mode), errno set on failure: ELOOP for a link on the way,
// EXDEV for a path that would leave dirfd ("..", an absolute path).
UniqueFd open_beneath(int dirfd, const std::string& rel, int flags, mode_t mode = 0);

// The fallback walk alone (tests run both paths on every kernel).
UniqueFd open_beneath_walk(int dirfd, const std::string& rel, int flags, mode_t mode = 0);

}  // namespace vpnlab
