// Scratch space only this process's user may enter: a fresh mkdtemp directory (mode 0700)
// under /tmp, never a predictable name there, where another local user could plant a link
// or a FIFO first. Whatever vpnlab writes for a moment (a version probe's output, a key on
// its way) goes inside one; it is removed through descriptors when it goes out of scope.
#pragma once
#include <string>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

class PrivateDir {
 public:
  // /tmp/PREFIX<pid>-XXXXXX: the pid lets `vpnlab cleanup` remove one a killed vpnlab left.
  static Result<PrivateDir> make(const std::string& prefix);
  PrivateDir(PrivateDir&&) noexcept = default;
  PrivateDir& operator=(PrivateDir&&) noexcept;
  ~PrivateDir();

  const std::string& path() const { return path_; }
  int fd() const { return fd_.get(); }

 private:
  PrivateDir() = default;
  void remove();
  UniqueFd parent_;  // /tmp
  UniqueFd fd_;      // the directory itself
  std::string name_, path_;
};

// The directory every PrivateDir is made in.
inline constexpr const char* kPrivateDirParent = "/tmp";

}  // namespace vpnlab
