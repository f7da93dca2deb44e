// Per-namespace sysctls: written through /proc/sys from a thread inside the namespace
// (net.* entries there belong to the reader's network namespace) and read back.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

using SysctlList = std::vector<std::pair<std::string, std::string>>;

// Keys are /proc/sys-relative paths ("net/ipv4/tcp_rmem"). A key whose file does not exist
// and that is marked optional with a leading '?' is recorded as "absent" (bridge-nf-call-*
// exist only while br_netfilter is loaded, and then nothing filters bridged traffic anyway).
// A key marked '~' is preferred: if the kernel refuses it with EPERM the current value is
// kept and recorded with the reason.
Result<std::map<std::string, std::string>> apply_sysctls(const SysctlList& settings);

// The settings every lab namespace gets, so that samples do not depend on host defaults.
SysctlList node_sysctls();
SysctlList bridge_sysctls();

}  // namespace vpnlab
