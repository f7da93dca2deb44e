// Writing into a directory that may have been tampered with (a run directory downloaded
// from CI, handed over by a colleague): every write lands inside it or fails. The directory
// is held open and each file is written by name below that descriptor: a name is one plain
// component (no '/', not '.' or '..'), a symbolic link in place of a file or a subdirectory
// is refused, and a file is written to a fresh temporary and renamed over its name, so the
// rename replaces a name, never writes through whatever the name points at.
#pragma once
#include <sys/types.h>

#include <string>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

class OutDir {
 public:
  // The directory the user named (a link to it is the user's choice, and is followed);
  // what lies below is not followed.
  static Result<OutDir> open(const std::string& path);
  // A subdirectory, created if missing; refused if it is a link or not a directory.
  Result<OutDir> subdir(const std::string& name, mode_t mode = 0750) const;
  // `name` holds `content` with exactly `mode`, whole or not at all.
  Status write(const std::string& name, const std::string& content, mode_t mode = 0640) const;
  const std::string& path() const { return path_; }
  int fd() const { return fd_.get(); }

 private:
  UniqueFd fd_;
  std::string path_;
};

// Whether `name` is one plain path component vpnlab may create (for messages: why not).
Status check_plain_name(const std::string& name);

// A run directory that vpnlab will write into again (`run --resume`) holds only regular
// files and directories: a symbolic link anywhere below it (to /etc, to a device) could
// take a later write elsewhere. Walks at most `max_entries` entries.
Status check_no_links_below(const std::string& dir, size_t max_entries = 1000000);

}  // namespace vpnlab
