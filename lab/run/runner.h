// The bench runner: checks every product first, records provenance, then runs rounds
// (interleaved: sample r of every product in turn; sequential: all samples of one product,
// then the next), each product on a topology built from nothing and torn down after it
// (product_round.h). The summary is computed from results.csv as written.
#pragma once
#include <string>
#include <vector>

#include "lab/runtime/node_runtime.h"
#include "lab/model/plan.h"
#include "lab/run/product_session.h"
#include "lab/model/product_spec.h"
#include "lab/run/sample.h"
#include "lab/results/summary.h"
#include "lab/run/results_csv.h"

namespace vpnlab {

struct RunOptions {
  std::string run_dir;       // results/<run_id>
  std::string products_dir;
  std::string keys_dir;      // reuse this key set (empty: generate into RUN/secrets/keys)
  bool resume = false;       // run_dir holds an earlier, unfinished run: add only missing rows
  int interrupt_fd = -1;
  // Builds the topology of one round; empty: the netns backend (the CLI passes the VM
  // backend's for backend = "vm", so the runner itself does not depend on vm/).
  RuntimeFactory build_nodes;
};


struct ProductOutcome {
  std::string product;
  bool started = false;
  std::string failure;                 // why it did not run, with log tail
  double bringup_s = 0;
  std::string plaintext;               // "" = the plaintext check passed; otherwise why not
  bool plaintext_checked = false;      // done once per product, on its first bring-up
  int retried_bringups = 0;            // bring-ups that failed once and were tried again
  std::vector<std::string> leftovers;  // teardown audit: what its stop left running or configured
  std::vector<std::string> run_files;  // files it left in the nodes' private /run (discarded)
};

struct RunReport {
  std::vector<SampleRow> rows;
  std::string summary;  // the table, computed from results.csv as written (as `report` does)
  std::vector<ProductOutcome> products;
  bool interrupted = false;
  Completeness completeness;  // of results.csv as written, against the plan's products x tests
  std::string output_error;   // summary, audit or report that could not be written (rows are complete)
};

Result<RunReport> run_bench(const Plan& plan, const RunOptions& opts);

// Whether a product can carry this plan's overlay (its shape and MTU); checked for every
// product before anything is created.
Status check_product_fits(const ProductSpec& spec, const Plan& plan);

// For mtu = "auto" (plan.overlay_mtu == 0): the largest overlay MTU every product carries
// over the plan's underlay, and which product limits it. A set MTU is left alone.
void resolve_overlay_mtu(Plan* plan, const std::vector<ProductSpec>& specs, std::string* limited_by = nullptr);

// Smallest MTU of the plan's underlay links.
int underlay_mtu(const Plan& plan);


}  // namespace vpnlab
