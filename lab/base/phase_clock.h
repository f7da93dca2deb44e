// Where a run's wall time goes: named phases (topology build, bring-up, warm-up, measuring,
// teardown, ...), each the sum of the spans timed under its name, so that a run can say
// "measuring 87 % of wall time" and a bench can print the harness's cost per sample.
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace vpnlab {

class PhaseClock {
 public:
  void add(const std::string& phase, double seconds);
  // Every phase with its seconds, in the order first seen.
  const std::vector<std::pair<std::string, double>>& totals() const { return totals_; }
  double seconds(const std::string& phase) const;
  // How many spans were added under `phase` (a phase per sample: the samples).
  int count(const std::string& phase) const;
  double sum() const;

 private:
  std::vector<std::pair<std::string, double>> totals_;
  std::vector<int> counts_;  // beside totals_
};

// Times its own life into `clock` under `phase` (nothing when clock is null).
class PhaseSpan {
 public:
  PhaseSpan(PhaseClock* clock, std::string phase)
      : clock_(clock), phase_(std::move(phase)), start_(std::chrono::steady_clock::now()) {}
  ~PhaseSpan() { stop(); }
  PhaseSpan(const PhaseSpan&) = delete;
  PhaseSpan& operator=(const PhaseSpan&) = delete;
  // Ends the span now; returns its seconds (0 once stopped).
  double stop();

 private:
  PhaseClock* clock_;
  std::string phase_;
  std::chrono::steady_clock::time_point start_;
  bool stopped_ = false;
};

}  // namespace vpnlab
