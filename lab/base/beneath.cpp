#include "lab/base/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace vpnlab {

namespace {

std::vector<std::string> components(const std::string& rel) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= rel.size()) {
    const size_t slash = rel.find('/', start);
    const size_t end = slash == std::string::npos ? rel.size() : slash;
    if (end > start) parts.push_back(rel.substr(start, end - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

}  // namespace

UniqueFd open_beneath_walk(int dirfd, const std::string& rel, int flags, mode_t mode) {
  if (rel.empty() || rel.front() == '/') {
    errno = rel.empty() ? ENOENT : EXDEV;
    return UniqueFd();
  }
  const auto parts = components(rel);
  // "." stays where it is; ".." could only be checked against the start by counting, and no
  // caller needs it: refused as openat2 refuses a climb out.
  for (const auto& p : parts)
    if (p == "..") {
      errno = EXDEV;
      return UniqueFd();
    }
  UniqueFd cur(fcntl(dirfd, F_DUPFD_CLOEXEC, 0));
  if (!cur.valid()) return cur;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    UniqueFd next(openat(cur.get(), parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      // O_NOFOLLOW on a link gives ENOTDIR with O_DIRECTORY: say what openat2 says.
      struct stat st {};
      if (errno == ENOTDIR && fstatat(cur.get(), parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode))
        errno = ELOOP;
      return UniqueFd();
    }
    cur = std::move(next);
  }
  const std::string& last = parts.empty() ? std::string(".") : parts.back();
  return UniqueFd(openat(cur.get(), last.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode));
}

UniqueFd open_beneath(int dirfd, const std::string& rel, int flags, mode_t mode) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_NOFOLLOW | O_CLOEXEC);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof how);
  if (fd >= 0) return UniqueFd(static_cast<int>(fd));
  // No openat2 here (ENOSYS), or a filter that refuses it (EPERM): the walk gives the same.
  if (errno == ENOSYS || errno == EPERM) return open_beneath_walk(dirfd, rel, flags, mode);
  return UniqueFd();
}

}  // namespace vpnlab
