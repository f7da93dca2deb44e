#include "lab/base/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/base/unique_fd.h"

namespace vpnlab {

namespace {

const char* type_text(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string mib(uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

Error too_large(const std::string& path, const std::string& size, uint64_t max_bytes) {
  return make_error(path + ": " + size + ", larger than vpnlab reads for such a file (" + mib(max_bytes) + ")",
                    "it was not written by vpnlab as it is: restore the original, or measure anew");
}

// open() errno, or the descriptor of a regular file within the bound.
Result<UniqueFd> open_bounded(const std::string& path, uint64_t max_bytes, int* open_errno, bool follow_link = true) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (follow_link ? 0 : O_NOFOLLOW)));
  if (!fd.valid()) {
    *open_errno = errno;
    if (errno == ELOOP && !follow_link)
      return make_error(path + " is a symbolic link: vpnlab reads a run's own files, never through a link",
                        "restore the file itself");
    return make_error("cannot read " + path + ": " + errno_text(errno));
  }
  struct stat st {};
  if (fstat(fd.get(), &st) < 0) return make_error("cannot read " + path + ": " + errno_text(errno));
  if (!S_ISREG(st.st_mode))
    return make_error(path + ": " + type_text(st.st_mode) + ", not a file vpnlab wrote",
                      "give the regular file itself");
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large(path, mib(st.st_size), max_bytes);
  return fd;
}

Result<std::string> read_bounded(const std::string& path, int fd, uint64_t max_bytes) {
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error("cannot read " + path + ": " + errno_text(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > max_bytes)
      return too_large(path, "more than " + mib(max_bytes) + " (it grew while read)", max_bytes);
  }
}

}  // namespace

Result<std::string> read_input_file(const std::string& path, uint64_t max_bytes) {
  int open_errno = 0;
  auto fd = open_bounded(path, max_bytes, &open_errno);
  if (!fd) return fd.error();
  return read_bounded(path, fd->get(), max_bytes);
}

Result<std::optional<std::string>> read_optional_input_file(const std::string& path, uint64_t max_bytes,
                                                            bool follow_link) {
  int open_errno = 0;
  auto fd = open_bounded(path, max_bytes, &open_errno, follow_link);
  if (!fd && open_errno == ENOENT) return std::optional<std::string>();
  if (!fd) return fd.error();
  auto text = read_bounded(path, fd->get(), max_bytes);
  if (!text) return text.error();
  return std::optional<std::string>(std::move(*text));
}

}  // namespace vpnlab
