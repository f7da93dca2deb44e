// What an impaired link really did. A link's delay, jitter and loss are asked of netem on
// each end's egress; whether the path did that (netem present but capped, a guest's clock
// or vCPU adding delay, jitter reordering packets under a FIFO) is only known by sending
// across it. Once per run, on the first built lab and before any product starts (the
// baseline's path: the underlay in clear), echoes cross each impaired link between its
// first two nodes; environment.json keeps what was asked (impaired_links) and what was
// achieved (achieved_paths), and the report shows both.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/ipv4.h"
#include "lab/base/result.h"
#include "lab/model/impairment_profiles.h"
#include "lab/model/plan.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

class NodeRuntime;
class EnvironmentRecord;

// One impaired link's echo path: from its first node to the second's address on it.
struct ImpairedPath {
  std::string link, from, to;
  Ipv4Addr to_address;
  double delay_ms = 0, jitter_ms = 0, loss_pct = 0;  // each direction, as asked
  bool reorder = false;
};
std::vector<ImpairedPath> impaired_paths(const Plan& plan);

// The echo schedule: kPathEchoes, kPathEchoIntervalMs (lab/model/impairment_profiles.h).
int late_answer_ms(const ImpairedPath& p);

struct AchievedPath {
  int sent = 0, answered = 0, reordered = 0;
  double rtt_min_ms = 0, rtt_p50_ms = 0, rtt_p99_ms = 0;
  double loss_pct = 0, loss_low_pct = 0, loss_high_pct = 0;  // a round trip's, 99 % exact interval
  double asked_rtt_ms = 0, asked_loss_pct = 0;               // a round trip: both directions' delay and loss
  std::vector<std::string> departures;                       // where the path did not do what was asked
};
// The interval's level: a link whose loss is as asked is called departing 1 run in 100.
constexpr double kPathLossLevel = 0.99;
// Round trips may exceed what was asked by this share plus 1 ms (a veth's or a guest's own
// time) before they are said to depart; below the asked delay by the same share.
constexpr double kPathRttTolerance = 0.10;

AchievedPath achieved_path(const ImpairedPath& path, const LatencyProbe::Summary& echoes);
// {"sent", "answered", "reordered", "rtt_min_ms", ..., "departures"} for environment.json
// (lab/record/achieved_text.h reads it back).
nlohmann::json achieved_json(const ImpairedPath& path, const AchievedPath& a);

// Measures every impaired link of the plan and records the figures in
// RUN_DIR/environment.json's achieved_paths[link]: beside impaired_links, not in it, which
// is what was asked and part of what makes two runs comparable. A link the backend cannot echo
// across (no probe there) is recorded as not measured, with the reason. Ctrl-C ends it early
// and records nothing.
Status measure_impaired_paths(const Plan& plan, NodeRuntime& nodes, EnvironmentRecord* environment, int interrupt_fd);

}  // namespace vpnlab
