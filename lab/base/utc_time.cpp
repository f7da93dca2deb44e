#include "lab/base/utc_time.h"

#include <ctime>

namespace vpnlab {

std::string utc_now() {
  char at[32];
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return at;
}

}  // namespace vpnlab
