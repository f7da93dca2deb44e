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

// What a run does to learn what an impaired link achieved (lab/run/achieved_path.h), once
// per run and link: 500 echoes 4 ms apart (2 s), then a wait for late answers. 500 echoes
// put a 1 % loss each way (2 % a round trip) within about ±1.5 %.
constexpr int kPathEchoes = 500;
constexpr int kPathEchoIntervalMs = 4;
// How long after the last echo its answer may still come: three asked round trips with
// their jitter, at least half a second.
int late_answer_ms(double delay_ms, double jitter_ms);
// The whole measurement of one link, in seconds (plan's estimate).
double path_measure_seconds(double delay_ms, double jitter_ms);

}  // namespace vpnlab
