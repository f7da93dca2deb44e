// Latency probes and plaintext watches that run on a host: the agent runs them, stop()
// fetches the summary once (hosts/host_agent.cpp: latency_start/stop, watch_start/stop).
#pragma once
#include "netns/latency_probe.h"
#include "netns/payload_watch.h"
#include "vm/agent_client.h"

namespace vpnlab {

class RemoteLatencyProbe : public LatencyProbe {
 public:
  RemoteLatencyProbe(AgentClient* agent, int id) : agent_(agent), id_(id) {}
  ~RemoteLatencyProbe() override { (void)stop(); }
  Summary stop() override {
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

 private:
  AgentClient* agent_;
  int id_;
  bool done_ = false;
  Summary summary_;
};

class RemotePayloadWatch : public PayloadWatch {
 public:
  RemotePayloadWatch(AgentClient* agent, int id) : agent_(agent), id_(id) {}
  ~RemotePayloadWatch() override { (void)stop(); }
  Summary stop() override {
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

 private:
  AgentClient* agent_;
  int id_;
  bool done_ = false;
  Summary summary_;
};

}  // namespace vpnlab
