// One set of bounds for what a user may ask, whether it comes from a topology file or the
// command line: checked before anything is created, so no count or duration can grow
// memory without limit or overflow a timer.
#pragma once

namespace vpnlab {

inline constexpr int kMinSamples = 1;
inline constexpr int kMaxSamples = 1000;
inline constexpr double kMinSampleSeconds = 1;
inline constexpr double kMaxSampleSeconds = 3600;  // one hour per sample
inline constexpr double kMaxWarmupSeconds = 600;
inline constexpr double kMaxAnySeconds = 86400;  // any other duration (timeouts, delays)
// Adaptive sampling: the half-width asked for, and a time budget (a week).
inline constexpr double kMinPrecision = 0.001, kMaxPrecision = 0.5;
inline constexpr double kMaxBudgetSeconds = 7 * 86400;

}  // namespace vpnlab
