#include "lab/model/impairment_profiles.h"

#include <algorithm>
#include <cmath>

namespace vpnlab {

const std::vector<ImpairmentProfile>& impairment_profiles() {
  // Round trips are twice the delay (netem on both ends' egress). Figures in the range
  // published for each kind of path; a user who needs others writes delay/jitter/loss.
  static const std::vector<ImpairmentProfile> table = {
      {"wan-20ms", 10, 1, 0, "a regional WAN: 20 ms round trip, little jitter, no loss"},
      {"wan-80ms", 40, 2, 0, "a continental WAN: 80 ms round trip"},
      {"lossy-1pct", 0, 0, 1, "a lossy access link: 1 % of packets lost each way, no delay"},
      {"mobile", 25, 10, 0.5, "a mobile (4G) path: 50 ms round trip, 10 ms jitter each way, 0.5 % loss"},
      {"satellite", 300, 5, 0.1, "a geostationary satellite path: 600 ms round trip, 0.1 % loss"},
  };
  return table;
}

const ImpairmentProfile* find_impairment_profile(const std::string& name) {
  for (const auto& p : impairment_profiles())
    if (name == p.name) return &p;
  return nullptr;
}

std::string impairment_profile_names() {
  std::string out;
  for (const auto& p : impairment_profiles()) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

int late_answer_ms(double delay_ms, double jitter_ms) {
  return std::max(500, static_cast<int>(std::ceil(3 * (2 * delay_ms + 4 * jitter_ms))));
}

double path_measure_seconds(double delay_ms, double jitter_ms) {
  return (kPathEchoes * kPathEchoIntervalMs + late_answer_ms(delay_ms, jitter_ms)) / 1000.0;
}

}  // namespace vpnlab
