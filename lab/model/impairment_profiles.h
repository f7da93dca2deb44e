// Impairment profiles: the paths users meet in the field as data, one entry each. A link's
// `profile = "wan-20ms"` gives it the profile's netem delay, jitter and loss on every end's
// egress (so a round trip crosses two of them: delays are per direction). Where the kernel
// has no netem the link is refused as any delay or loss is; the VM backend's guests have it.
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

struct ImpairmentProfile {
  const char* name;
  double delay_ms;   // each direction
  double jitter_ms;  // each direction; packets keep their order unless the link asks `reorder`
  double loss_pct;   // each direction
  const char* about;
};

const std::vector<ImpairmentProfile>& impairment_profiles();
// nullptr when there is no such profile.
const ImpairmentProfile* find_impairment_profile(const std::string& name);
// "lossy-1pct, mobile, ..." for messages.
std::string impairment_profile_names();

}  // namespace vpnlab
