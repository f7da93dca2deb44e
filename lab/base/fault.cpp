#include "lab/base/fault.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace vpnlab {

namespace {

struct FaultSpec {
  std::string point;
  int pass = 1;
  int signal = SIGINT;
};

struct FaultState {
  std::mutex mutex;
  std::vector<FaultSpec> specs;
  std::map<std::string, int> passes;
};

FaultState* state() {
  // Parsed once; nullptr when VPNLAB_FAULT is unset (the common case).
  static FaultState* s = []() -> FaultState* {
    const char* env = getenv("VPNLAB_FAULT");
    if (!env || !*env) return nullptr;
    auto* st = new FaultState();
    std::istringstream in(env);
    for (std::string item; std::getline(in, item, ',');) {
      FaultSpec f;
      std::istringstream parts(item);
      std::string pass, sig;
      std::getline(parts, f.point, ':');
      std::getline(parts, pass, ':');
      std::getline(parts, sig, ':');
      f.pass = pass.empty() ? 1 : std::atoi(pass.c_str());
      f.signal = sig == "kill" ? SIGKILL : sig == "term" ? SIGTERM : sig == "hup" ? SIGHUP : SIGINT;
      st->specs.push_back(f);
    }
    return st;
  }();
  return s;
}

}  // namespace

int fault_signal_due(const char* point) {
  FaultState* s = state();
  if (!s) return 0;
  std::lock_guard<std::mutex> lock(s->mutex);
  int pass = ++s->passes[point];
  for (const auto& f : s->specs)
    if (f.point == point && f.pass == pass) return f.signal;
  return 0;
}

void fault_point(const char* point) {
  if (int sig = fault_signal_due(point)) kill(getpid(), sig);
}

}  // namespace vpnlab
