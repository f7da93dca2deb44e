#include "lab/agent/agent_probes.h"

namespace vpnlab {

namespace {
nlohmann::json failed(const Error& e) { return agent_failure(e); }
}  // namespace

nlohmann::json AgentProbes::add_latency(Result<std::unique_ptr<LatencyProbe>> p) {
  if (!p) return failed(p.error());
  if (!*p) return {{"ok", true}, {"id", 0}};
  probes_[next_id_] = std::move(*p);
  return {{"ok", true}, {"id", next_id_++}};
}

nlohmann::json AgentProbes::add_watch(Result<std::unique_ptr<PayloadWatch>> w) {
  if (!w) return failed(w.error());
  if (!*w) return {{"ok", true}, {"id", 0}};
  watches_[next_id_] = std::move(*w);
  return {{"ok", true}, {"id", next_id_++}};
}

nlohmann::json AgentProbes::latency_stop(const json& req) {
  auto it = probes_.find(req.value("id", 0));
  if (it == probes_.end()) return failed(make_error("no such probe"));
  LatencyProbe::Summary s = it->second->stop();
  probes_.erase(it);
  return {{"ok", true}, {"sent", s.sent}, {"answered", s.answered}, {"p50_ms", s.p50_ms}, {"p99_ms", s.p99_ms}, {"max_ms", s.max_ms},
          {"rtts_ms", s.rtts_ms}};
}

nlohmann::json AgentProbes::watch_stop(const json& req) {
  auto it = watches_.find(req.value("id", 0));
  if (it == watches_.end()) return failed(make_error("no such watch"));
  PayloadWatch::Summary s = it->second->stop();
  watches_.erase(it);
  return {{"ok", true}, {"frames", s.frames}, {"bytes", s.bytes}, {"ipv4_bytes", s.ipv4_bytes}, {"port_bytes", s.port_bytes},
          {"drops", s.drops}, {"pattern_seen", s.pattern_seen}};
}

LatencyProbe::Summary RemoteLatencyProbe::stop() {
  if (done_) return summary_;
  done_ = true;
  auto r = agent_->call({{"op", "latency_stop"}, {"id", id_}});
  if (!r) return summary_;
  summary_.sent = r->value("sent", 0);
  summary_.answered = r->value("answered", 0);
  summary_.p50_ms = r->value("p50_ms", 0.0);
  summary_.p99_ms = r->value("p99_ms", 0.0);
  summary_.max_ms = r->value("max_ms", 0.0);
  summary_.rtts_ms = r->value("rtts_ms", std::vector<double>{});
  return summary_;
}

PayloadWatch::Summary RemotePayloadWatch::stop() {
  if (done_) return summary_;
  done_ = true;
  auto r = agent_->call({{"op", "watch_stop"}, {"id", id_}});
  if (!r) return summary_;
  summary_.frames = r->value("frames", uint64_t{0});
  summary_.bytes = r->value("bytes", uint64_t{0});
  summary_.ipv4_bytes = r->value("ipv4_bytes", uint64_t{0});
  summary_.port_bytes = r->value("port_bytes", uint64_t{0});
  summary_.drops = r->value("drops", uint64_t{0});
  summary_.pattern_seen = r->value("pattern_seen", false);
  return summary_;
}

}  // namespace vpnlab
