// Guests under TCG: QEMU emulates every instruction, so a tunnel is bound by the emulated
// CPU, not by the link it is meant to test nor by the product's own cost (here a 30 ms / 1 %
// loss WAN gave every tunnel 4-5 Mbit/s). Said beside such figures, in the table and in the
// answer, from environment.json's "accel" (the vm backend's record). Likewise a run whose
// samples ran without some of vpnlab's meters.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace vpnlab {

// True when the run's guests ran under TCG emulation.
bool emulated_run(const nlohmann::json& env);

// "" unless emulated_run: one sentence, for the table's notes and the report's answer.
std::string emulation_note(const nlohmann::json& env);

// "" unless the run left meters out (environment.json "meters_off", the meter-cost bench):
// which ones, so a figure measured without them is not taken for one measured with them.
std::string meters_off_note(const nlohmann::json& env);

}  // namespace vpnlab
