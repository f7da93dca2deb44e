#include "lab/base/fs_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <filesystem>

#include <fstream>

#include <sstream>
#include "lab/base/unique_fd.h"

namespace vpnlab {

Status make_dirs(const std::string& path, mode_t mode) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if ((i == path.size() || path[i] == '/') && !cur.empty() && mkdir(cur.c_str(), mode) < 0 && errno != EEXIST)
      return make_error("cannot create " + cur + ": " + errno_text(errno));
    if (i < path.size()) cur += path[i];
  }
  return ok_status();
}

Status write_file(const std::string& path, const std::string& content, mode_t mode) {
  // Never through a link, never into a FIFO or a device that stands at the name: opened
  // without truncating, judged by its type, and only then emptied.
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode));
  if (!fd.valid() && errno == ELOOP)
    return make_error("cannot write " + path + ": it is a symbolic link, and vpnlab writes nothing through a link");
  if (!fd.valid()) return make_error("cannot write " + path + ": " + errno_text(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) < 0) return make_error("cannot write " + path + ": " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) return make_error("cannot write " + path + ": not a regular file");
  if (ftruncate(fd.get(), 0) < 0) return make_error("cannot write " + path + ": " + errno_text(errno));
  fchmod(fd.get(), mode);  // an existing file keeps its old mode otherwise
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error("cannot write " + path + ": " + errno_text(n < 0 ? errno : ENOSPC));
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Result<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot read " + path + ": " + errno_text(errno));
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::string read_file_text(const std::string& path) {
  auto text = read_whole_file(path);
  return text ? text.value() : std::string();
}

Status replace_file(const std::string& path, const std::string& content, mode_t mode) {
  const std::string tmp = path + ".new";
  if (auto s = write_file(tmp, content, mode); !s) {
    unlink(tmp.c_str());
    return s;
  }
  if (rename(tmp.c_str(), path.c_str()) < 0) {
    int err = errno;
    unlink(tmp.c_str());
    return make_error("cannot replace " + path + ": " + errno_text(err));
  }
  return ok_status();
}

Status check_free_space(const std::string& dir, uint64_t need_bytes) {
  struct statvfs st {};
  if (statvfs(dir.c_str(), &st) < 0)
    return make_error("cannot check the free space of " + dir + ": " + errno_text(errno));
  uint64_t free_bytes = static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
  if (free_bytes >= need_bytes && (st.f_files == 0 || st.f_favail > 16)) return ok_status();
  return make_error(
      dir + ": disk full: " + std::to_string(free_bytes / 1024) + " KiB free (" + std::to_string(st.f_favail) +
          " inodes), a sample needs at least " + std::to_string(need_bytes / 1024) + " KiB: " + errno_text(ENOSPC),
      "free space there, or give --out a larger file system; finished rows are kept: measure the rest with "
      "'vpnlab run FILE --resume RUN_DIR'");
}

std::string boot_id() {
  std::string text = read_file_text("/proc/sys/kernel/random/boot_id");
  return text.substr(0, text.find('\n'));
}

std::string own_binary_dir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

}  // namespace vpnlab
