// `vpnlab diff RUN_A RUN_B [--threshold X]`: verdicts between two run directories, with
// their provenance checked first (results of different backends are never compared).
#pragma once
#include <optional>
#include <string>

#include "lab/compare.h"
#include "lab/result.h"

namespace vpnlab {

struct DiffOutcome {
  std::string text;           // the table, provenance notes first
  std::vector<Comparison> comparisons;
  bool gate_failed = false;   // some comparison is slower by more than the threshold
};

Result<DiffOutcome> diff_runs(const std::string& run_a, const std::string& run_b, std::optional<double> threshold);

}  // namespace vpnlab
