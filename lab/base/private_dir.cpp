#include "lab/base/private_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/base/trusted_dir.h"

namespace vpnlab {

Result<PrivateDir> PrivateDir::make(const std::string& prefix) {
  if (prefix.empty() || prefix.find('/') != std::string::npos)
    return make_error("a private directory's prefix is one name: '" + prefix + "'");
  PrivateDir d;
  d.parent_ = UniqueFd(open(kPrivateDirParent, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d.parent_.valid()) return make_error("cannot open " + std::string(kPrivateDirParent) + ": " + errno_text(errno));
  std::string tmpl = std::string(kPrivateDirParent) + "/" + prefix + std::to_string(getpid()) + "-XXXXXX";
  // mkdtemp makes a new name with mode 0700 or fails: it never takes one that exists.
  if (!mkdtemp(tmpl.data())) return make_error("cannot make a private directory " + tmpl + ": " + errno_text(errno));
  d.path_ = tmpl;
  d.name_ = tmpl.substr(tmpl.rfind('/') + 1);
  d.fd_ = UniqueFd(openat(d.parent_.get(), d.name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!d.fd_.valid() || fstat(d.fd_.get(), &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
    const int err = d.fd_.valid() ? EPERM : errno;
    d.fd_.reset();
    return make_error("cannot use the private directory " + tmpl + ": " + errno_text(err));
  }
  return d;
}

PrivateDir& PrivateDir::operator=(PrivateDir&& o) noexcept {
  if (this != &o) {
    remove();
    parent_ = std::move(o.parent_);
    fd_ = std::move(o.fd_);
    name_ = std::move(o.name_);
    path_ = std::move(o.path_);
  }
  return *this;
}

PrivateDir::~PrivateDir() { remove(); }

void PrivateDir::remove() {
  if (!parent_.valid() || name_.empty()) return;
  fd_.reset();
  (void)remove_tree_at(parent_.get(), kPrivateDirParent, name_);
  parent_.reset();
  name_.clear();
}

}  // namespace vpnlab
