// Effects of a sweep's axes: what changing one axis does, per product, the other axes held.
// For every point whose value on an axis is not the axis's first value, the product's
// round-paired ratio of that point over the point with the first value and the same values
// on every other axis ("streams 1 -> 8 at underlay_mtu=1500"). All of a run's effects of one
// figure are one family, corrected together as the conclusion's lines are (each interval at
// 1 - 5 %/N), and each verdict is read off the interval printed beside it. The figure is the
// sweep's headline: Gbit/s, or transactions per second for rr/crr. From the rows alone, so
// `report` and `compare RUN --effects` rebuild it.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/record/results_csv.h"
#include "lab/results/compare.h"

namespace vpnlab {

struct SweepEffect {
  std::string sweep;               // the swept test (sweep_of): "stream"
  std::string axis;                // "streams"
  std::string from, to;            // the axis's first value and this point's: "1", "8"
  std::string held;                // the other axes' values: "underlay_mtu=1500" ("" when none)
  std::string unit;                // "Gbit/s" or "tx/s"
  std::string from_test, to_test;  // the two points' tests ("stream-1", "stream-8")
  Comparison c;                    // product = reference = the product; ratio = to / from
};

// Every effect of every sweep in `rows`, in the order: sweep, axis, held values, product.
std::vector<SweepEffect> sweep_effects(const std::vector<SampleRow>& rows, double alpha = 0.05);

// The terminal's table (empty when nothing is swept on two values), the family note under it.
std::string sweep_effects_text(const std::vector<SweepEffect>& effects);
// The line under the table: each figure's family and its intervals' level.
std::string sweep_effects_note(const std::vector<SweepEffect>& effects);
// summary.json's "effects".
nlohmann::json sweep_effects_json(const std::vector<SweepEffect>& effects);

}  // namespace vpnlab
