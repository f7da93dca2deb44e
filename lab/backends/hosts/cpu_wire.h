// CPU times as the host agent sends them ("cpu" op) and the controller reads them.
#pragma once
#include <nlohmann/json.hpp>

#include "lab/base/cpu_stat.h"

namespace vpnlab {

inline nlohmann::json cpu_json(const CpuTimes& t) {
  return {t.user, t.nice, t.system, t.idle, t.iowait, t.irq, t.softirq, t.steal};
}

// Throws nlohmann's exceptions on a malformed value (the caller turns them into an Error).
inline CpuTimes cpu_from_json(const nlohmann::json& j) {
  return CpuTimes{j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>(), j.at(3).get<double>(),
                  j.at(4).get<double>(), j.at(5).get<double>(), j.at(6).get<double>(), j.at(7).get<double>()};
}

}  // namespace vpnlab
