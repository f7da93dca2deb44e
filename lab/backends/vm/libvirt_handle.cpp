#include "lab/backends/vm/libvirt_handle.h"
#include "lab/base/fs_util.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace vpnlab {

void VirConnectDeleter::operator()(virConnectPtr c) const {
  if (c) virConnectClose(c);
}
void VirDomainDeleter::operator()(virDomainPtr d) const {
  if (d) virDomainFree(d);
}

std::string virt_error_text() {
  virErrorPtr e = virGetLastError();
  return e && e->message ? e->message : "unknown libvirt error";
}

std::string embedded_qemu_conf() {
  return "# written by vpnlab for its embedded driver\n"
         "user = \"root\"\n"
         "group = \"root\"\n"
         "dynamic_ownership = 0\n"
         "remember_owner = 0\n"
         "security_driver = \"none\"\n"
         "cgroup_controllers = [ ]\n"
         "namespaces = [ ]\n"
         "stdio_handler = \"file\"\n";
}

Result<VirConnect> open_embedded_qemu(const std::string& root) {
  // Unix sockets of the driver live under ROOT: their paths must stay below 108 bytes.
  if (root.size() > 60)
    return make_error(
        "libvirt root '" + root + "' is " + std::to_string(root.size()) + " characters long",
        "the embedded driver's sockets live under it and must stay below 108 bytes: use a shorter [lab] name");
  std::error_code ec;
  std::filesystem::create_directories(root + "/etc", ec);
  if (ec) return make_error("cannot create " + root + "/etc: " + ec.message());
  // The embedded driver reads ROOT/etc/qemu.conf (checked: a copy in ROOT/etc/qemu/ is ignored
  // and the domain start then hangs waiting for virtlogd).
  {
    if (auto s = write_file(root + "/etc/qemu.conf", embedded_qemu_conf(), 0644); !s) return s.error();
  }
  if (virEventRegisterDefaultImpl() < 0)
    return make_error("libvirt: cannot register its event loop: " + virt_error_text());
  std::thread([] {
    for (;;) virEventRunDefaultImpl();
  }).detach();
  std::string uri = "qemu:///embed?root=" + root;
  virConnectPtr c = virConnectOpen(uri.c_str());
  if (!c)
    return make_error("libvirt: cannot open " + uri + ": " + virt_error_text(),
                      "install libvirt-daemon-driver-qemu and qemu-system-x86 (scripts/install-deps.sh does)");
  return VirConnect(c);
}

}  // namespace vpnlab
