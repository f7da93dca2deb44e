// The report's "Product vs product" section: every product over one reference product,
// round-paired (lab/results/product_compare.h), as a table and one ratio chart per test.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "lab/record/results_csv.h"
#include "lab/results/svg.h"

namespace vpnlab {

struct PairwiseSection {
  std::string reference;                              // empty: fewer than two products to compare
  std::vector<std::vector<std::string>> rows;         // the first is the header
  std::map<std::string, std::vector<Bar>> gbps_bars;  // per test: product / reference, Gbit/s
};

// The reference is `vs` when given, else the first tunnel (a baseline over-performs every
// tunnel: against it each is "slower", which tells nothing). Baselines are left out of the
// table; rows are grouped by test, the highest Gbit/s ratio first.
PairwiseSection pairwise_section(const std::vector<SampleRow>& rows, const std::string& vs);

}  // namespace vpnlab
