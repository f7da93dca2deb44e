#include "lab/agent/agent_probes.h"
#include "lab/base/json_number.h"

namespace vpnlab {

nlohmann::json summary_json(const LatencyProbe::Summary& s) {
  return {{"ok", true},         {"sent", s.sent},     {"answered", s.answered}, {"reordered", s.reordered},
          {"p50_ms", s.p50_ms}, {"p99_ms", s.p99_ms}, {"max_ms", s.max_ms},     {"rtts_ms", s.rtts_ms}};
}

nlohmann::json summary_json(const PayloadWatch::Summary& s) {
  return {{"ok", true},
          {"frames", s.frames},
          {"bytes", s.bytes},
          {"ipv4_bytes", s.ipv4_bytes},
          {"port_bytes", s.port_bytes},
          {"drops", s.drops},
          {"pattern_seen", s.pattern_seen}};
}

void summary_from_json(const nlohmann::json& j, LatencyProbe::Summary* s) {
  s->sent = whole_number_or(j, "sent", 0);
  s->answered = whole_number_or(j, "answered", 0);
  s->reordered = whole_number_or(j, "reordered", 0);
  s->p50_ms = j.value("p50_ms", 0.0);
  s->p99_ms = j.value("p99_ms", 0.0);
  s->max_ms = j.value("max_ms", 0.0);
  s->rtts_ms = j.value("rtts_ms", std::vector<double>{});
}

void summary_from_json(const nlohmann::json& j, PayloadWatch::Summary* s) {
  s->frames = whole_number_or<uint64_t>(j, "frames", 0);
  s->bytes = whole_number_or<uint64_t>(j, "bytes", 0);
  s->ipv4_bytes = whole_number_or<uint64_t>(j, "ipv4_bytes", 0);
  s->port_bytes = whole_number_or<uint64_t>(j, "port_bytes", 0);
  s->drops = whole_number_or<uint64_t>(j, "drops", 0);
  s->pattern_seen = j.value("pattern_seen", false);
}

template <typename T>
nlohmann::json AgentProbes::add(std::map<int, std::unique_ptr<T>>* running, Result<std::unique_ptr<T>> started) {
  if (!started) return agent_failure(started.error());
  if (!*started) return {{"ok", true}, {"id", 0}};
  (*running)[next_id_] = std::move(*started);
  return {{"ok", true}, {"id", next_id_++}};
}

template <typename T>
nlohmann::json AgentProbes::stop(std::map<int, std::unique_ptr<T>>* running, const json& req, const char* unknown) {
  auto it = running->find(whole_number_or(req, "id", 0));
  if (it == running->end()) return agent_failure(make_error(unknown));
  const auto summary = it->second->stop();
  running->erase(it);
  return summary_json(summary);
}

template nlohmann::json AgentProbes::add(std::map<int, std::unique_ptr<LatencyProbe>>*,
                                         Result<std::unique_ptr<LatencyProbe>>);
template nlohmann::json AgentProbes::add(std::map<int, std::unique_ptr<PayloadWatch>>*,
                                         Result<std::unique_ptr<PayloadWatch>>);
template nlohmann::json AgentProbes::stop(std::map<int, std::unique_ptr<LatencyProbe>>*, const json&, const char*);
template nlohmann::json AgentProbes::stop(std::map<int, std::unique_ptr<PayloadWatch>>*, const json&, const char*);

}  // namespace vpnlab
