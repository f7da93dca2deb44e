// RAII around libvirt's C handles and the embedded QEMU driver (qemu:///embed?root=DIR):
// no libvirtd, nothing shared with the user's own libvirt, state under the run directory.
#pragma once
#include <memory>
#include <string>

#include "lab/base/result.h"

typedef struct _virConnect* virConnectPtr;
typedef struct _virDomain* virDomainPtr;

namespace vpnlab {

struct VirConnectDeleter {
  void operator()(virConnectPtr c) const;
};
struct VirDomainDeleter {
  void operator()(virDomainPtr d) const;
};
using VirConnect = std::unique_ptr<std::remove_pointer_t<virConnectPtr>, VirConnectDeleter>;
using VirDomain = std::unique_ptr<std::remove_pointer_t<virDomainPtr>, VirDomainDeleter>;

// libvirt's last error in this thread, e.g. "internal error: ...".
std::string virt_error_text();

// The driver settings the lab needs, written to ROOT/etc/qemu/qemu.conf before opening:
// QEMU runs as root without a security driver (it reads the host's root over 9p), no
// cgroups (the host's are not the lab's to change; pinning is by affinity), console and
// QEMU logs to files (no virtlogd).
std::string embedded_qemu_conf();

// Starts libvirt's default event loop on a thread (the embedded driver needs one) and
// opens qemu:///embed?root=ROOT. Call once per process, before any other thread exists
// that should not be in this process's network namespace.
Result<VirConnect> open_embedded_qemu(const std::string& root);

}  // namespace vpnlab
