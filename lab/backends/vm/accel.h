// KVM or TCG: KVM only when a guest really boots with it. /dev/kvm can exist and still not
// run ordinary guests (kvm-pvm here: they hang), so a timed boot probe decides, and its
// answer is cached per host boot. The choice and its reason go into every run's provenance.
#pragma once
#include <optional>
#include <string>

#include "lab/backends/vm/domain_xml.h"
#include "lab/backends/vm/image.h"

namespace vpnlab {

struct AccelChoice {
  Accel accel = Accel::tcg;
  std::string reason;
};

// VPNLAB_ACCEL=kvm|tcg forces a choice (stated as such in the reason).
AccelChoice choose_accel(const Image& image, const std::string& cache_root);

// The boot probe's answer cached in cache_root this host boot (for `doctor`, which boots
// nothing), with the guest kernel it was made with; nullopt when none was made yet.
struct CachedAccel {
  AccelChoice choice;
  std::string kernel;
};
std::optional<CachedAccel> cached_accel(const std::string& cache_root);

}  // namespace vpnlab
