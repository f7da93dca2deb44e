// `vpnlab scale FILE`: the mesh-scale sweep of a scale file (lab/model/scale_spec.h), each
// mesh size and product on a freshly built mesh, rows to OUT/<run id>/scale.csv and the
// table (lab/results/scale_table.h) to stdout.
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

struct ScaleRequest {
  std::string file;
  std::vector<std::string> products;  // empty: the file's
  std::vector<int> sizes;             // empty: the file's
  std::string out_dir = "results";
};

// The exit code: 0 every measured row complete; 5 some row failed (its reason is in the
// table); 1 an error; 130 interrupted.
int run_scale(const ScaleRequest& request);

}  // namespace vpnlab
