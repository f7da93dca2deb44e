// Latency probes and plaintext watches run by an agent (the guest's or a host's) until the
// controller asks for their summary: the agent side (AgentProbes: latency_start/stop,
// watch_start/stop) and the controller side (RemoteStoppable), one wire for both backends.
#pragma once
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "lab/agent/agent_client.h"
#include "lab/base/result.h"
#include "lab/runtime/measurements.h"

namespace vpnlab {

// A summary on the wire: what the agent answers to the stop operation, and what the
// controller reads back from it.
nlohmann::json summary_json(const LatencyProbe::Summary& s);
nlohmann::json summary_json(const PayloadWatch::Summary& s);
void summary_from_json(const nlohmann::json& j, LatencyProbe::Summary* s);
void summary_from_json(const nlohmann::json& j, PayloadWatch::Summary* s);

class AgentProbes {
 public:
  using json = nlohmann::json;
  // A started probe or watch (null: the runtime has none) gets an id; 0 for none.
  json add_latency(Result<std::unique_ptr<LatencyProbe>> p) { return add(&probes_, std::move(p)); }
  json add_watch(Result<std::unique_ptr<PayloadWatch>> w) { return add(&watches_, std::move(w)); }
  json latency_stop(const json& req) { return stop(&probes_, req, "no such probe"); }
  json watch_stop(const json& req) { return stop(&watches_, req, "no such watch"); }

 private:
  template <typename T>
  json add(std::map<int, std::unique_ptr<T>>* running, Result<std::unique_ptr<T>> started);
  template <typename T>
  json stop(std::map<int, std::unique_ptr<T>>* running, const json& req, const char* unknown);

  std::map<int, std::unique_ptr<LatencyProbe>> probes_;
  std::map<int, std::unique_ptr<PayloadWatch>> watches_;
  int next_id_ = 1;
};

// The controller's side: a probe or watch running in an agent, stopped once (by `stop` or
// when dropped) with the agent's `stop_op`; a call that fails leaves the summary empty.
template <typename Base>
class RemoteStoppable : public Base {
 public:
  using Summary = typename Base::Summary;
  RemoteStoppable(AgentClient* agent, int id, const char* stop_op) : agent_(agent), id_(id), stop_op_(stop_op) {}
  ~RemoteStoppable() override { (void)stop(); }
  Summary stop() override {
    if (done_) return summary_;
    done_ = true;
    if (auto r = agent_->call({{"op", stop_op_}, {"id", id_}})) summary_from_json(*r, &summary_);
    return summary_;
  }

 private:
  AgentClient* agent_;
  int id_;
  const char* stop_op_;
  bool done_ = false;
  Summary summary_;
};

}  // namespace vpnlab
