#include "lab/agent/agent_children.h"

#include <algorithm>

namespace vpnlab {

using nlohmann::json;

namespace {
json no_such_process() { return {{"ok", false}, {"error", "no such process id"}}; }
}  // namespace

int AgentChildren::add(std::unique_ptr<NodeProcess> p) {
  children_[next_id_] = std::move(p);
  return next_id_++;
}

json AgentChildren::wait(int id, int timeout_ms) {
  auto it = children_.find(id);
  if (it == children_.end()) return no_such_process();
  bool exited = it->second->wait_exit(std::min(timeout_ms, 1000));
  json r{{"ok", true}, {"exited", exited}};
  if (exited) {
    r["status"] = it->second->exit_status();
    children_.erase(it);
  }
  return r;
}

json AgentChildren::stop(int id, int grace_ms) {
  auto it = children_.find(id);
  if (it == children_.end()) return {{"ok", true}, {"gone", true}};
  bool killed = it->second->stop(grace_ms);
  json r{{"ok", true}, {"status", it->second->exit_status()}, {"killed", killed}};
  children_.erase(it);
  return r;
}

json AgentChildren::reap() {
  json exited = json::array();
  for (auto it = children_.begin(); it != children_.end();) {
    if (it->second->wait_exit(0)) {
      exited.push_back({{"id", it->first}, {"status", it->second->exit_status()}});
      it = children_.erase(it);
    } else {
      ++it;
    }
  }
  return {{"ok", true}, {"exited", exited}};
}

json AgentChildren::status(int id) {
  auto it = children_.find(id);
  if (it == children_.end()) return no_such_process();
  ProcStatus st = it->second->status();
  return {{"ok", true}, {"rss_kb", st.rss_kb}, {"peak_rss_kb", st.peak_rss_kb}, {"threads", st.threads}};
}

json AgentChildren::cpu(int id) {
  auto it = children_.find(id);
  if (it == children_.end()) return no_such_process();
  return {{"ok", true}, {"cpu_s", it->second->cpu_seconds()}};
}

void AgentChildren::stop_all(int grace_ms) {
  for (auto& [id, c] : children_) c->stop(grace_ms);
  children_.clear();
}

std::set<pid_t> AgentChildren::pids() const {
  std::set<pid_t> s;
  for (const auto& [id, c] : children_) s.insert(c->host_pid());
  return s;
}

}  // namespace vpnlab
