#include "lab/results/emulation_note.h"

namespace vpnlab {

bool emulated_run(const nlohmann::json& env) {
  return env.is_object() && env.contains("accel") && env["accel"].is_string() &&
         env["accel"].get<std::string>() == "tcg";
}

std::string emulation_note(const nlohmann::json& env) {
  if (!emulated_run(env)) return "";
  return "these guests ran under TCG emulation (no usable KVM): every figure is bound by the emulated CPU, not by the "
         "link or the "
         "product's own cost; compare them only with other TCG runs of this machine, never with KVM or netns runs";
}

std::string meters_off_note(const nlohmann::json& env) {
  if (!env.is_object() || !env.contains("meters_off") || !env["meters_off"].is_array() || env["meters_off"].empty())
    return "";
  std::string names;
  for (const auto& m : env["meters_off"])
    if (m.is_string()) names += (names.empty() ? "" : ", ") + m.get<std::string>();
  return "samples ran without these meters: " + names +
         " (their columns are empty); compare these figures only with runs that left out the same";
}

}  // namespace vpnlab
