#include "lab/base/out_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

namespace vpnlab {

namespace {

const char* kHint = "a run directory holds only what vpnlab wrote: remove the link, or copy the run anew";

// What stands at `name` below `dirfd` now: nothing (ENOENT) is fine.
Status check_not_link(int dirfd, const std::string& dir, const std::string& name, bool want_dir) {
  struct stat st {};
  if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0) {
    if (errno == ENOENT) return ok_status();
    return make_error("cannot inspect " + dir + "/" + name + ": " + errno_text(errno));
  }
  if (S_ISLNK(st.st_mode))
    return make_error(dir + "/" + name + " is a symbolic link: vpnlab writes nothing through a link", kHint);
  if (want_dir && !S_ISDIR(st.st_mode)) return make_error(dir + "/" + name + " is not a directory", kHint);
  if (!want_dir && !S_ISREG(st.st_mode)) return make_error(dir + "/" + name + " is not a regular file", kHint);
  return ok_status();
}

}  // namespace

Status check_plain_name(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos)
    return make_error("'" + name + "' is not a plain file name (one path component)",
                      "names from a run come from its topology's name rules");
  return ok_status();
}

Result<OutDir> OutDir::open(const std::string& path) {
  OutDir d;
  d.path_ = path;
  d.fd_ = UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d.fd_.valid()) return make_error("cannot open the directory " + path + ": " + errno_text(errno));
  return d;
}

Result<OutDir> OutDir::subdir(const std::string& name, mode_t mode) const {
  if (auto s = check_plain_name(name); !s) return with_context(s.error(), path_);
  if (mkdirat(fd_.get(), name.c_str(), mode) < 0 && errno != EEXIST)
    return make_error("cannot create " + path_ + "/" + name + ": " + errno_text(errno));
  if (auto s = check_not_link(fd_.get(), path_, name, /*want_dir=*/true); !s) return s.error();
  OutDir d;
  d.path_ = path_ + "/" + name;
  // O_NOFOLLOW closes the race between the check above and this open.
  d.fd_ = UniqueFd(openat(fd_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!d.fd_.valid()) return make_error("cannot open " + d.path_ + ": " + errno_text(errno), kHint);
  return d;
}

Status OutDir::write(const std::string& name, const std::string& content, mode_t mode) const {
  if (auto s = check_plain_name(name); !s) return with_context(s.error(), path_);
  const std::string file = path_ + "/" + name;
  if (auto s = check_not_link(fd_.get(), path_, name, /*want_dir=*/false); !s) return s;
  static std::atomic<unsigned> counter{0};
  const std::string tmp = "." + name + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  UniqueFd fd(openat(fd_.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd.valid()) return make_error("cannot write " + file + ": " + errno_text(errno));
  fchmod(fd.get(), mode);  // not narrowed by the umask
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      unlinkat(fd_.get(), tmp.c_str(), 0);
      return make_error("cannot write " + file + ": " + errno_text(err));
    }
    done += static_cast<size_t>(n);
  }
  if (renameat(fd_.get(), tmp.c_str(), fd_.get(), name.c_str()) < 0) {
    int err = errno;
    unlinkat(fd_.get(), tmp.c_str(), 0);
    return make_error("cannot write " + file + ": " + errno_text(err));
  }
  return ok_status();
}

Status check_no_links_below(const std::string& dir, size_t max_entries) {
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(dir, std::filesystem::directory_options::none, ec), end;
  if (ec) return make_error("cannot read " + dir + ": " + ec.message());
  size_t seen = 0;
  for (; it != end; it.increment(ec)) {
    if (ec) return make_error("cannot read " + dir + ": " + ec.message());
    if (++seen > max_entries)
      return make_error(dir + " holds more than " + std::to_string(max_entries) + " files: not a run vpnlab wrote");
    const auto type = it->symlink_status(ec).type();
    if (type == std::filesystem::file_type::symlink)
      return make_error(it->path().string() + " is a symbolic link: vpnlab writes nothing through a link", kHint);
    // A FIFO or a device in place of a file vpnlab opens would block it or write to the device
    // (a guest's agent socket is vpnlab's own, and never opened as a file).
    if (type == std::filesystem::file_type::fifo || type == std::filesystem::file_type::character ||
        type == std::filesystem::file_type::block)
      return make_error(it->path().string() + " is a FIFO or a device, not a file vpnlab wrote", kHint);
  }
  return ok_status();
}

}  // namespace vpnlab
