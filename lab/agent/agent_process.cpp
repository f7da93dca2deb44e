#include "lab/agent/agent_process.h"
#include "lab/base/json_number.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <vector>

namespace vpnlab {

AgentProcess::AgentProcess(AgentProcesses* owner, AgentClient* agent, int id, std::string name,
                           std::function<void()> on_exit)
    : owner_(owner),
      agent_(agent),
      id_(id),
      name_(std::move(name)),
      on_exit_(std::move(on_exit)),
      efd_(::eventfd(0, EFD_CLOEXEC)) {}

AgentProcess::~AgentProcess() {
  if (!exited_) stop(1000);
  owner_->forget(this);
}

bool AgentProcess::wait_exit(int timeout_ms, int interrupt_fd, bool* interrupted) {
  if (exited_) return true;
  pollfd p[2] = {{efd_.get(), POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
  int r = ::poll(p, interrupt_fd >= 0 ? 2 : 1, timeout_ms);
  if (r > 0 && interrupt_fd >= 0 && (p[1].revents & POLLIN) && !exited_) {
    if (interrupted) *interrupted = true;
    return false;
  }
  return exited_;
}

ProcStatus AgentProcess::status() {
  if (exited_) return {};
  auto r = agent_->call({{"op", "status"}, {"id", id_}}, 5000);
  if (!r) return {};
  return ProcStatus{r->value("rss_kb", int64_t{0}), r->value("peak_rss_kb", int64_t{0}), r->value("threads", 0)};
}

double AgentProcess::cpu_seconds() {
  if (exited_) return 0;
  auto r = agent_->call({{"op", "cpu"}, {"id", id_}}, 5000);
  return r ? r->value("cpu_s", 0.0) : 0;  // an agent without the op answers an error: not measured
}

void AgentProcess::exited(int status) {
  if (on_exit_) {
    auto hook = std::move(on_exit_);
    on_exit_ = nullptr;
    hook();
  }
  status_ = status;
  exited_ = true;
  uint64_t one = 1;
  (void)!::write(efd_.get(), &one, sizeof one);
}

bool AgentProcess::stop(int grace_ms) {
  if (exited_) return false;
  owner_->forget(this);
  auto killed = agent_->stop(id_, grace_ms);
  exited(-1);
  return killed.ok() && *killed;
}

AgentProcesses::AgentProcesses() : watcher_([this] { watch(); }) {}

AgentProcesses::~AgentProcesses() { stop_watching(); }

void AgentProcesses::stop_watching() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

Result<std::unique_ptr<NodeProcess>> AgentProcesses::spawn(AgentClient& agent, const AgentClient::Spawn& spec,
                                                           const std::string& where, std::function<void()> on_exit) {
  auto id = agent.spawn(spec);
  if (!id) return with_context(id.error(), where);
  std::string name = spec.argv.empty() ? "?" : spec.argv[0].substr(spec.argv[0].rfind('/') + 1);
  auto p = std::make_unique<AgentProcess>(this, &agent, *id, name, std::move(on_exit));
  std::lock_guard<std::mutex> lock(mu_);
  tracked_[&agent][*id] = p.get();
  return std::unique_ptr<NodeProcess>(std::move(p));
}

void AgentProcesses::forget(AgentProcess* p) {
  std::lock_guard<std::mutex> lock(mu_);
  tracked_[p->agent()].erase(p->id());
}

std::vector<std::string> AgentProcesses::still_tracked(const std::string& what) const {
  std::vector<std::string> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [agent, procs] : tracked_)
    for (const auto& [id, p] : procs) out.push_back(what + ": process " + p->name() + " still tracked");
  return out;
}

void AgentProcesses::watch() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::milliseconds(100));
    if (stopping_) break;
    std::vector<AgentClient*> agents;
    for (const auto& [agent, procs] : tracked_)
      if (!procs.empty()) agents.push_back(agent);
    lock.unlock();
    for (AgentClient* agent : agents) {
      auto r = agent->call({{"op", "reap"}}, 5000);
      if (!r && agent->lost()) {
        // Its agent is gone, and with it every answer about them: they count as ended
        // (status -1) so that nothing waits for them; the runtime says which agent was lost.
        std::lock_guard<std::mutex> g(mu_);
        for (auto& [id, p] : tracked_[agent]) p->exited(-1);
        tracked_[agent].clear();
        continue;
      }
      if (!r) continue;
      std::lock_guard<std::mutex> g(mu_);
      for (const auto& e : (*r)["exited"]) {
        auto& procs = tracked_[agent];
        auto it = procs.find(whole_number_or(e, "id", 0));
        if (it == procs.end()) continue;
        it->second->exited(whole_number_or(e, "status", -1));
        procs.erase(it);
      }
    }
    lock.lock();
  }
}

}  // namespace vpnlab
