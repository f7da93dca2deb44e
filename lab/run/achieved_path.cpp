#include "lab/run/achieved_path.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "lab/base/stats.h"
#include "lab/record/achieved_text.h"
#include "lab/run/environment_record.h"
#include "lab/run/interrupt.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

std::vector<ImpairedPath> impaired_paths(const Plan& plan) {
  std::vector<ImpairedPath> out;
  for (const auto& v : plan.veths) {
    if (!v.impaired()) continue;
    if (std::any_of(out.begin(), out.end(), [&](const ImpairedPath& p) { return p.link == v.link; })) continue;
    ImpairedPath p{v.link, "", "", {}, v.delay_ms, v.jitter_ms, v.loss_pct, v.reorder};
    for (const auto& node : plan.nodes)
      for (const auto& u : node.underlay) {
        if (u.link != v.link) continue;
        if (p.from.empty())
          p.from = node.name;
        else if (p.to.empty() && node.name != p.from)
          p.to = node.name, p.to_address = u.addr.addr;
      }
    if (!p.to.empty()) out.push_back(p);
  }
  return out;
}

int late_answer_ms(const ImpairedPath& p) { return late_answer_ms(p.delay_ms, p.jitter_ms); }

namespace {

// Where the path did not do what was asked: a round trip outside the tolerance, a loss the
// interval excludes, echoes overtaken on a link that asked for order.
std::vector<std::string> departures_of(const ImpairedPath& path, const AchievedPath& a) {
  std::vector<std::string> out;
  if (a.answered == 0) {
    out.push_back("no echo was answered");
    return out;
  }
  const double slack = kPathRttTolerance * a.asked_rtt_ms;
  if (a.rtt_p50_ms > a.asked_rtt_ms + slack + 1.0)
    out.push_back("round trip " + round_trip_text(a.rtt_p50_ms) + " ms, more than the " +
                  round_trip_text(a.asked_rtt_ms) + " ms asked" +
                  (path.jitter_ms > 0 && !path.reorder
                       ? " (jitter in order: a packet leaves no earlier than the one before it)"
                       : ""));
  else if (a.rtt_p50_ms < a.asked_rtt_ms - slack)
    out.push_back("round trip " + round_trip_text(a.rtt_p50_ms) + " ms, less than the " +
                  round_trip_text(a.asked_rtt_ms) + " ms asked");
  if (a.asked_loss_pct < a.loss_low_pct || a.asked_loss_pct > a.loss_high_pct)
    out.push_back(fmt::format("loss {:.2f} % a round trip ({:.0f} % interval {:.2f}-{:.2f}), not the {:.2f} % asked",
                              a.loss_pct, 100 * kPathLossLevel, a.loss_low_pct, a.loss_high_pct, a.asked_loss_pct));
  if (a.reordered > 0 && !path.reorder)
    out.push_back(std::to_string(a.reordered) + " echo(es) overtaken although the link keeps packets in order");
  return out;
}

}  // namespace

AchievedPath achieved_path(const ImpairedPath& path, const LatencyProbe::Summary& echoes) {
  AchievedPath a;
  a.sent = echoes.sent;
  a.answered = echoes.answered;
  a.reordered = echoes.reordered;
  if (!echoes.rtts_ms.empty()) {
    a.rtt_min_ms = *std::min_element(echoes.rtts_ms.begin(), echoes.rtts_ms.end());
    a.rtt_p50_ms = LatencyProbe::quantile(echoes.rtts_ms, 0.50);
    a.rtt_p99_ms = LatencyProbe::quantile(echoes.rtts_ms, 0.99);
  }
  const size_t sent = static_cast<size_t>(std::max(0, echoes.sent));
  const size_t lost = sent - std::min(sent, static_cast<size_t>(std::max(0, echoes.answered)));
  if (sent > 0) a.loss_pct = 100.0 * static_cast<double>(lost) / static_cast<double>(sent);
  const ProportionInterval in = proportion_interval(lost, sent, kPathLossLevel);
  a.loss_low_pct = 100 * in.low;
  a.loss_high_pct = 100 * in.high;
  // netem's delay and loss act on each direction's egress: an echo crosses both.
  a.asked_rtt_ms = 2 * path.delay_ms;
  a.asked_loss_pct = 100 * (1 - std::pow(1 - path.loss_pct / 100, 2));
  a.departures = departures_of(path, a);
  return a;
}

nlohmann::json achieved_json(const ImpairedPath& path, const AchievedPath& a) {
  return {{"from", path.from},
          {"to", path.to},
          {"sent", a.sent},
          {"answered", a.answered},
          {"reordered", a.reordered},
          {"rtt_min_ms", a.rtt_min_ms},
          {"rtt_p50_ms", a.rtt_p50_ms},
          {"rtt_p99_ms", a.rtt_p99_ms},
          {"loss_pct", a.loss_pct},
          {"loss_low_pct", a.loss_low_pct},
          {"loss_high_pct", a.loss_high_pct},
          {"loss_level", kPathLossLevel},
          {"asked_rtt_ms", a.asked_rtt_ms},
          {"asked_loss_pct", a.asked_loss_pct},
          {"departures", a.departures}};
}

namespace {

// The echoes of one path: sent on the probe's schedule, then a wait for late answers.
Result<nlohmann::json> measure_one(const ImpairedPath& path, NodeRuntime& nodes, int interrupt_fd, bool* interrupted) {
  auto probe = nodes.latency_probe(path.from, path.to_address, kPathEchoIntervalMs, kPathEchoes);
  if (!probe) return probe.error();
  if (!*probe)
    return nlohmann::json{
        {"from", path.from}, {"to", path.to}, {"not_measured", nodes.backend() + " backend has no echo probe"}};
  *interrupted = measurement_window_interrupted(interrupt_fd, kPathEchoes * kPathEchoIntervalMs + late_answer_ms(path));
  const LatencyProbe::Summary echoes = (*probe)->stop();
  return achieved_json(path, achieved_path(path, echoes));
}

}  // namespace

Status measure_impaired_paths(const Plan& plan, NodeRuntime& nodes, EnvironmentRecord* environment, int interrupt_fd) {
  for (const auto& path : impaired_paths(plan)) {
    bool interrupted = false;
    auto achieved = measure_one(path, nodes, interrupt_fd, &interrupted);
    if (interrupted) return ok_status();
    nlohmann::json record =
        achieved ? *achieved
                 : nlohmann::json{{"from", path.from}, {"to", path.to}, {"not_measured", achieved.error().message}};
    const std::string text = achieved_text(record);
    if (record.contains("departures") && !record["departures"].empty())
      spdlog::warn("link '{}' ({} -> {}): {}", path.link, path.from, path.to, text);
    else
      spdlog::info("link '{}' ({} -> {}): {}", path.link, path.from, path.to, text);
    // A resumed run keeps its first session's record: it is what the first rows crossed.
    nlohmann::json first;
    if (auto s = environment->set_entry_once("achieved_paths", path.link, record, &first); !s) return s;
    if (first.is_null()) continue;
    if (achieved_alike(first, record))
      spdlog::info("link '{}': as in the run's first session, whose record environment.json keeps", path.link);
    else
      spdlog::warn(
          "link '{}': this session's path differs from the run's first session's, whose record environment.json keeps: "
          "{}",
          path.link, achieved_text(first));
  }
  return ok_status();
}

}  // namespace vpnlab
