// Whom vpnlab trusts with what it runs, deletes or keeps (docs/trust.md). A directory vpnlab
// runs programs from (the product cache), deletes in, or keeps state in must be one nobody
// else can change: owned by root or by the caller, not writable by group or others, and so is
// every directory above it, except that an ancestor may be a root-owned sticky directory such
// as /tmp (nobody else may rename or remove what root or the caller made there). This is
// OpenSSH's StrictModes rule with systemd's chaseat() walk: checked on descriptors, one
// component at a time from /, so the answer is about the directory that is then used, never
// about a path string that may point elsewhere a moment later.
#pragma once
#include <sys/types.h>

#include <string>

#include "lab/base/result.h"
#include "lab/base/unique_fd.h"

namespace vpnlab {

// The directory at `path` (absolute or relative to the working directory), opened read-only,
// when it and every directory above it is trusted; otherwise an error naming the component,
// its owner and mode, and the fix. A symbolic link on the way is followed only when it is owned
// by root or the caller and sits in a trusted directory (nobody else could have planted it).
Result<UniqueFd> open_trusted_dir(const std::string& path);

// `rel` ("products/NAME") below the trusted directory `dirfd` (shown as `dir_text`): every
// component a plain name, never a link, each trusted by the same rule; missing components are
// made with `mode` when `create` is set. The last one, opened read-only.
Result<UniqueFd> open_dir_below(int dirfd, const std::string& dir_text, const std::string& rel, bool create,
                                mode_t mode = 0755);

// Whether the file `name` below the trusted directory `dirfd` is one to run: a regular file
// (not a link), owned by root or the caller, writable by nobody else.
Status check_trusted_file(int dirfd, const std::string& dir_text, const std::string& name);

// Removes `name` below `dirfd` with everything it holds, through descriptors: a link is
// removed as a name and never followed, so nothing outside `dirfd` is touched. A name that is
// already gone is success.
Status remove_tree_at(int dirfd, const std::string& dir_text, const std::string& name);
// The same for a path: its directory is opened as named, its last component never followed
// (a link there is removed, not what it points at).
Status remove_tree(const std::string& path);

}  // namespace vpnlab
