#include "lab/base/trusted_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <vector>

namespace vpnlab {

namespace {

const char* kTrustHint =
    "vpnlab runs programs from, deletes in and keeps state in directories only root or you can change: make it and "
    "every "
    "directory above it owned by root (or you) and not writable by group or others (chmod go-w), or choose another "
    "directory (docs/trust.md)";
constexpr int kMaxLinks = 16;         // links followed on the way to a trusted directory
constexpr int kMaxRemoveDepth = 256;  // nesting remove_tree_at walks before it refuses

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

bool trusted_owner(uid_t uid) { return uid == 0 || uid == geteuid(); }

// Why a directory with `st` is not to be trusted, or "". An ancestor may be a root-owned
// sticky directory (/tmp): nobody else may rename or remove what another user made in it.
std::string distrust(const struct stat& st, bool ancestor) {
  if (!trusted_owner(st.st_uid)) return "is owned by uid " + std::to_string(st.st_uid) + ", neither root nor you";
  if ((st.st_mode & 022) == 0) return "";
  if (ancestor && (st.st_mode & S_ISVTX) && st.st_uid == 0) return "";
  return std::string("is writable by ") + ((st.st_mode & 002) ? "others" : "its group") + " (mode " +
         mode_text(st.st_mode) + ")";
}

std::string join(const std::string& dir, const std::string& name) { return dir == "/" ? "/" + name : dir + "/" + name; }

std::string parent_of(const std::string& shown) {
  const size_t slash = shown.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : shown.substr(0, slash);
}

void push_components(const std::string& path, std::deque<std::string>* todo) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo->push_front(*it);
}

Result<UniqueFd> open_root(std::string* shown) {
  UniqueFd root(open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return make_error("cannot open /: " + errno_text(errno));
  *shown = "/";
  return root;
}

Error refused(const std::string& what, const std::string& why) {
  return make_error(what + " " + why + ": vpnlab does not trust it", kTrustHint);
}

}  // namespace

Result<UniqueFd> open_trusted_dir(const std::string& path) {
  if (path.empty()) return make_error("no directory named", kTrustHint);
  std::string absolute = path;
  if (path.front() != '/') {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return make_error("cannot tell the working directory: " + errno_text(errno));
    absolute = std::string(cwd) + "/" + path;
  }
  std::string shown;
  auto cur = open_root(&shown);
  if (!cur) return cur.error();
  std::deque<std::string> todo;
  push_components(absolute, &todo);
  int links = 0;
  for (;;) {
    // Each directory is judged as an ancestor while something is left to walk, as the
    // directory itself at the end; a link at the end leaves its target's components.
    struct stat st {};
    if (fstat(cur->get(), &st) < 0) return make_error("cannot inspect " + shown + ": " + errno_text(errno));
    if (auto why = distrust(st, !todo.empty()); !why.empty()) return refused(shown, why);
    if (todo.empty()) break;
    const std::string name = todo.front();
    todo.pop_front();
    if (name == ".") continue;
    if (name == "..") {
      UniqueFd up(openat(cur->get(), "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!up.valid()) return make_error("cannot open the parent of " + shown + ": " + errno_text(errno));
      *cur = std::move(up);
      shown = parent_of(shown);
      continue;
    }
    const std::string next_shown = join(shown, name);
    if (fstatat(cur->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0)
      return make_error("cannot open " + next_shown + ": " + errno_text(errno));
    if (S_ISLNK(st.st_mode)) {
      // The directory holding the link is trusted (judged above): the link is, if its owner is.
      if (!trusted_owner(st.st_uid))
        return refused(next_shown,
                       "is a symbolic link owned by uid " + std::to_string(st.st_uid) + ", neither root nor you");
      if (++links > kMaxLinks) return make_error("cannot open " + path + ": " + errno_text(ELOOP));
      std::vector<char> target(PATH_MAX + 1);
      const ssize_t n = readlinkat(cur->get(), name.c_str(), target.data(), PATH_MAX);
      if (n <= 0) return make_error("cannot read the link " + next_shown + ": " + errno_text(n < 0 ? errno : EINVAL));
      const std::string to(target.data(), static_cast<size_t>(n));
      push_components(to, &todo);
      if (to.front() == '/') {
        cur = open_root(&shown);
        if (!cur) return cur.error();
      }
      continue;
    }
    if (!S_ISDIR(st.st_mode)) return make_error(next_shown + " is not a directory", kTrustHint);
    UniqueFd next(openat(cur->get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) return make_error("cannot open " + next_shown + ": " + errno_text(errno));
    *cur = std::move(next);
    shown = next_shown;
  }
  UniqueFd dir(openat(cur->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return make_error("cannot open " + shown + ": " + errno_text(errno));
  return dir;
}

Result<UniqueFd> open_dir_below(int dirfd, const std::string& dir_text, const std::string& rel, bool create,
                                mode_t mode) {
  UniqueFd cur(fcntl(dirfd, F_DUPFD_CLOEXEC, 0));
  if (!cur.valid()) return make_error("cannot open " + dir_text + ": " + errno_text(errno));
  std::string shown = dir_text;
  std::deque<std::string> parts;
  push_components(rel, &parts);
  for (const auto& name : parts) {
    shown += "/" + name;
    if (name == "." || name == "..")
      return make_error(shown + ": '" + name + "' is not a plain directory name", kTrustHint);
    if (create && mkdirat(cur.get(), name.c_str(), mode) < 0 && errno != EEXIST)
      return make_error("cannot create " + shown + ": " + errno_text(errno));
    UniqueFd next(openat(cur.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      const int err = errno;
      struct stat st {};
      if (fstatat(cur.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return refused(shown, "is a symbolic link (vpnlab follows no link below " + dir_text + ")");
      return make_error("cannot open " + shown + ": " + errno_text(err));
    }
    struct stat st {};
    if (fstat(next.get(), &st) < 0) return make_error("cannot inspect " + shown + ": " + errno_text(errno));
    if (auto why = distrust(st, /*ancestor=*/false); !why.empty()) return refused(shown, why);
    cur = std::move(next);
  }
  return cur;
}

Status check_trusted_file(int dirfd, const std::string& dir_text, const std::string& name) {
  const std::string shown = dir_text + "/" + name;
  struct stat st {};
  if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0)
    return make_error("cannot inspect " + shown + ": " + errno_text(errno));
  if (S_ISLNK(st.st_mode)) return refused(shown, "is a symbolic link");
  if (!S_ISREG(st.st_mode)) return refused(shown, "is not a regular file");
  if (!trusted_owner(st.st_uid))
    return refused(shown, "is owned by uid " + std::to_string(st.st_uid) + ", neither root nor you");
  if (st.st_mode & 022)
    return refused(shown, std::string("is writable by ") + ((st.st_mode & 002) ? "others" : "its group") + " (mode " +
                              mode_text(st.st_mode) + ")");
  return ok_status();
}

namespace {

Status remove_below(int dirfd, const std::string& dir_text, const std::string& name, int depth) {
  const std::string shown = dir_text + "/" + name;
  struct stat st {};
  if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0)
    return errno == ENOENT ? ok_status() : make_error("cannot remove " + shown + ": " + errno_text(errno));
  if (!S_ISDIR(st.st_mode)) {
    if (unlinkat(dirfd, name.c_str(), 0) < 0 && errno != ENOENT)
      return make_error("cannot remove " + shown + ": " + errno_text(errno));
    return ok_status();
  }
  if (depth >= kMaxRemoveDepth)
    return make_error("cannot remove " + shown + ": nested deeper than " + std::to_string(kMaxRemoveDepth) +
                      " directories");
  UniqueFd dir(openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) {
    if (errno == ENOENT) return ok_status();
    // Replaced by a link or a file since it was looked at: remove that name, follow nothing.
    if ((errno == ELOOP || errno == ENOTDIR) && unlinkat(dirfd, name.c_str(), 0) == 0) return ok_status();
    return make_error("cannot remove " + shown + ": " + errno_text(errno));
  }
  std::vector<std::string> entries;
  {
    const int listing = fcntl(dir.get(), F_DUPFD_CLOEXEC, 0);
    DIR* d = listing >= 0 ? fdopendir(listing) : nullptr;
    if (!d) {
      if (listing >= 0) close(listing);
      return make_error("cannot list " + shown + ": " + errno_text(errno));
    }
    while (const dirent* e = readdir(d)) {
      const std::string entry = e->d_name;
      if (entry != "." && entry != "..") entries.push_back(entry);
    }
    closedir(d);
  }
  for (const auto& entry : entries)
    if (auto s = remove_below(dir.get(), shown, entry, depth + 1); !s) return s;
  if (unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) < 0 && errno != ENOENT)
    return make_error("cannot remove " + shown + ": " + errno_text(errno));
  return ok_status();
}

}  // namespace

Status remove_tree_at(int dirfd, const std::string& dir_text, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    return make_error("cannot remove '" + name + "' below " + dir_text + ": not a plain name");
  return remove_below(dirfd, dir_text, name, 0);
}

Status remove_tree(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const size_t slash = trimmed.rfind('/');
  const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : trimmed.substr(0, slash);
  const std::string name = slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
  UniqueFd dir(open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid())
    return errno == ENOENT ? ok_status() : make_error("cannot remove " + path + ": " + errno_text(errno));
  return remove_tree_at(dir.get(), parent, name);
}

}  // namespace vpnlab
