// Latency probes and plaintext watches run by an agent (the guest's or a host's) until the
// controller asks for their summary: the agent side (AgentProbes: latency_start/stop,
// watch_start/stop) and the controller side (RemoteLatencyProbe, RemotePayloadWatch), one
// wire for both backends.
#pragma once
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "lab/agent/agent_client.h"
#include "lab/base/result.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

class AgentProbes {
 public:
  using json = nlohmann::json;
  // A started probe or watch (null: the runtime has none) gets an id; 0 for none.
  json add_latency(Result<std::unique_ptr<LatencyProbe>> p);
  json add_watch(Result<std::unique_ptr<PayloadWatch>> w);
  json latency_stop(const json& req);
  json watch_stop(const json& req);

 private:
  std::map<int, std::unique_ptr<LatencyProbe>> probes_;
  std::map<int, std::unique_ptr<PayloadWatch>> watches_;
  int next_id_ = 1;
};

class RemoteLatencyProbe : public LatencyProbe {
 public:
  RemoteLatencyProbe(AgentClient* agent, int id) : agent_(agent), id_(id) {}
  ~RemoteLatencyProbe() override { (void)stop(); }
  Summary stop() override;

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
  Summary stop() override;

 private:
  AgentClient* agent_;
  int id_;
  bool done_ = false;
  Summary summary_;
};

}  // namespace vpnlab
