// A run's provenance (its environment.json) as the questions "what differs between these two
// runs?" (`diff` says it above its verdicts) and "may their figures be put in one series?"
// (the history's comparability). Both read one table of keys, so the two answers never
// disagree about what a key means.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vpnlab {

// What differs between two runs' environment.json, first what refuses a diff (topology,
// pinning), then what a reader must know (MTU, order, CPU, kernel, version, ...).
struct ProvenanceDifference {
  std::string what, a, b;
  bool refuses = false;  // recorded in both and different: refused unless --force
};
std::vector<ProvenanceDifference> provenance_differences(const nlohmann::json& a, const nlohmann::json& b);
std::string provenance_text(const std::vector<ProvenanceDifference>& differences);

// Comparability: two runs' figures belong in one series exactly when their keys are equal.
// The key holds every provenance entry that changes what a figure measures: the machine
// (machine identity, CPU model and count, kernel, backend, accelerator), the setup
// (topology file's sha256, pinning, receive packet steering, order, data-plane threads,
// overlay MTU, shaped links) and the sample's length. Not in it: the product's version (that
// is what a series follows), the vpnlab version, the topology's file name, the sample count
// (intervals say how many). An entry a run did not record (an older vpnlab) is part of the
// key as "not recorded": such runs are comparable with each other, not with newer ones.
std::string comparability_key(const nlohmann::json& environment);
// The key as a reader sees it: "topology 270d49ee, netns, AMD EPYC x2, kernel 6.18.44, MTU 1400, 5 s samples, pinned".
std::string comparability_text(const nlohmann::json& environment);

}  // namespace vpnlab
