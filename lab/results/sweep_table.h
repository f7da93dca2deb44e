// Curves of a sweep (lab/model/sweep.h): per swept test, one table with a row per product
// and a column per point, each cell the median of the test's headline figure (Gbit/s; per
// second for transaction kinds) with the interval of that median. From the rows alone, so
// `report` rebuilds it.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/stats.h"
#include "lab/record/results_csv.h"

namespace vpnlab {

struct SweepCurves {
  std::string test;                 // the swept test (sweep_of)
  std::string metric, unit;         // "gbps", "Gbit/s" or "tps", "transactions/s"
  std::vector<std::string> points;  // in measuring order: "streams=1", "streams=8"
  std::vector<std::string> point_tests;
  std::vector<std::string> products;
  std::vector<std::vector<SampleStats>> cells;  // [product][point]; n = 0: none valid
};

std::vector<SweepCurves> summarize_sweeps(const std::vector<SampleRow>& rows);

// A cell as the summary and the report write it: "0.525 [0.448, 0.571]", digits by size
// (13883 [12055, 14521]), "*" where the interval covers less than 95 %, "-" for none.
std::string sweep_cell_text(const SampleStats& s);

// The text tables (empty when no test is swept) and summary.json's "sweeps".
std::string sweep_tables(const std::vector<SampleRow>& rows);
nlohmann::json sweeps_json(const std::vector<SampleRow>& rows);

}  // namespace vpnlab
