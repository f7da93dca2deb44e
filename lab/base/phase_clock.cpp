#include "lab/base/phase_clock.h"

namespace vpnlab {

void PhaseClock::add(const std::string& phase, double seconds) {
  for (size_t i = 0; i < totals_.size(); ++i)
    if (totals_[i].first == phase) {
      totals_[i].second += seconds;
      ++counts_[i];
      return;
    }
  totals_.emplace_back(phase, seconds);
  counts_.push_back(1);
}

int PhaseClock::count(const std::string& phase) const {
  for (size_t i = 0; i < totals_.size(); ++i)
    if (totals_[i].first == phase) return counts_[i];
  return 0;
}

double PhaseClock::seconds(const std::string& phase) const {
  for (const auto& [name, total] : totals_)
    if (name == phase) return total;
  return 0;
}

double PhaseClock::sum() const {
  double s = 0;
  for (const auto& [name, total] : totals_) s += total;
  return s;
}

double PhaseSpan::stop() {
  if (stopped_) return 0;
  stopped_ = true;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (clock_) clock_->add(phase_, s);
  return s;
}

}  // namespace vpnlab
