#include "lab/fs_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

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
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return make_error("cannot write " + path + ": " + errno_text(errno));
  fchmod(fd, mode);  // an existing file keeps its old mode otherwise
  bool ok = write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  int err = errno;
  close(fd);
  if (!ok) return make_error("cannot write " + path + ": " + errno_text(err));
  return ok_status();
}

std::string read_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace vpnlab
