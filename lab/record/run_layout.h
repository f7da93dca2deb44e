// Where a run directory keeps each sample's raw files: raw/PRODUCT/TEST/sample-N<suffix>.
// The run layer writes them, the report reads them; both name them from here.
#pragma once
#include <string>

#include "lab/base/input_file.h"

namespace vpnlab {

inline constexpr int kEnvironmentSchema = 1;  // environment.json's "schema": what its readers check

inline constexpr const char* kIperfSuffix = ".json";    // iperf3's JSON (-pK.json per process when several)
inline constexpr const char* kRttSuffix = "-rtt.txt";   // the latency probes' round trips, ms, one per line
inline constexpr const char* kRssSuffix = "-rss.txt";   // "t_s node rss_kb" every 100 ms
inline constexpr const char* kRrSuffix = "-rr.json";    // rr tests: vpnlab-crr's JSON line, one connection
inline constexpr const char* kCrrSuffix = "-crr.json";  // crr tests: vpnlab-crr's JSON line

inline std::string raw_dir(const std::string& run_dir, const std::string& product, const std::string& test) {
  return run_dir + "/raw/" + product + "/" + test;
}

inline std::string raw_sample_file(const std::string& run_dir, const std::string& product, const std::string& test,
                                   int sample, const std::string& suffix) {
  return raw_dir(run_dir, product, test) + "/sample-" + std::to_string(sample) + suffix;
}

// A raw file read back for a plot: "" when missing, not a regular file, or past the raw
// bound (a tampered run loses that plot; the figures come from results.csv).
inline std::string read_raw_sample(const std::string& run_dir, const std::string& product, const std::string& test,
                                   int sample, const std::string& suffix) {
  auto text = read_input_file(raw_sample_file(run_dir, product, test, sample, suffix), kMaxRawSampleBytes);
  return text ? std::move(*text) : std::string();
}

}  // namespace vpnlab
