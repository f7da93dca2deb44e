// The end-of-run table: product, test, median Gbit/s, min-max, ratio to baseline.
#pragma once
#include <string>
#include <vector>

#include "lab/results_csv.h"

namespace vpnlab {

std::string summary_table(const std::vector<SampleRow>& rows);

}  // namespace vpnlab
