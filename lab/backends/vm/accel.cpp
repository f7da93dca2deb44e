#include "lab/backends/vm/accel.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/base/json_depth.h"
#include "lab/base/process.h"

namespace vpnlab {
namespace {

// Boots the image's kernel with KVM and an init that powers off at once; QEMU exits by
// itself when that works. 20 s is several times a KVM boot; a hung guest never exits.
AccelChoice kvm_boot_probe(const Image& image, const std::string& cache_root) {
  SpawnSpec spec;
  spec.argv = {"qemu-system-x86_64",
               "-accel",
               "kvm",
               "-M",
               "pc",
               "-m",
               "256",
               "-nodefaults",
               "-display",
               "none",
               "-no-reboot",
               "-serial",
               "file:" + cache_root + "/accel-probe.console",
               "-kernel",
               image.vmlinux,
               "-initrd",
               image.initrd,
               "-append",
               "console=ttyS0 quiet panic=-1 rdinit=/bin/busybox -- poweroff -f"};
  spec.stdout_path = cache_root + "/accel-probe.log";
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_command(spec, 20);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r) return {Accel::tcg, "KVM boot probe could not start QEMU: " + r.error().message};
  if (r->timed_out)
    return {Accel::tcg, "/dev/kvm is there but a KVM guest did not boot within 20 s (kvm-pvm or nested limits)"};
  if (r->exit_status != 0)
    return {Accel::tcg, "/dev/kvm is there but QEMU failed with it: " + log_tail(spec.stdout_path, 1)};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return {Accel::kvm, std::string("a KVM guest booted and powered off in ") + buf + " s"};
}

}  // namespace

namespace {
std::string this_boot_id() {
  std::string boot_id = read_file_text("/proc/sys/kernel/random/boot_id");
  while (!boot_id.empty() && boot_id.back() == '\n') boot_id.pop_back();
  return boot_id;
}
}  // namespace

std::optional<CachedAccel> cached_accel(const std::string& cache_root) {
  auto j = parse_json_bounded(read_file_text(cache_root + "/accel.json"));
  if (j.is_discarded() || !j.is_object() || j.value("boot_id", "") != this_boot_id()) return std::nullopt;
  return CachedAccel{{j.value("accel", "tcg") == "kvm" ? Accel::kvm : Accel::tcg, j.value("reason", "")},
                     j.value("kernel", "")};
}

AccelChoice choose_accel(const Image& image, const std::string& cache_root) {
  if (const char* f = std::getenv("VPNLAB_ACCEL"); f && *f) {
    std::string v = f;
    return {v == "kvm" ? Accel::kvm : Accel::tcg, "forced by VPNLAB_ACCEL=" + v};
  }
  int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (fd < 0) return {Accel::tcg, "no usable /dev/kvm (" + errno_text(errno) + ")"};
  ::close(fd);
  std::string boot_id = this_boot_id();
  std::string cache = cache_root + "/accel.json";
  auto j = parse_json_bounded(read_file_text(cache));
  if (!j.is_discarded() && j.value("boot_id", "") == boot_id && j.value("kernel", "") == image.kernel_release)
    return {j.value("accel", "tcg") == "kvm" ? Accel::kvm : Accel::tcg,
            j.value("reason", "") + " (probed earlier this boot)"};
  AccelChoice c = kvm_boot_probe(image, cache_root);
  nlohmann::json out{
      {"boot_id", boot_id}, {"kernel", image.kernel_release}, {"accel", accel_name(c.accel)}, {"reason", c.reason}};
  (void)write_file(cache, out.dump(2) + "\n", 0644);
  return c;
}

}  // namespace vpnlab
