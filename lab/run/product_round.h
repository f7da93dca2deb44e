// One product on a freshly built topology: bring it up, prove it, run the given sample
// numbers of every test (after a warm-up), stop it, audit and tear down. Interleaved
// runs call this once per round and product (A B C, A B C, ...); sequential runs once
// per product with every sample.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lab/base/phase_clock.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/record/results_csv.h"
#include "lab/run/environment_record.h"
#include "lab/run/keys.h"
#include "lab/run/run_options.h"
#include "lab/run/run_timing.h"

namespace vpnlab {

struct RoundContext {
  const Plan* plan = nullptr;      // the whole topology
  const Plan* vpn_plan = nullptr;  // the same with only the nodes that run the VPN
  const ProductSpec* spec = nullptr;
  const std::map<std::string, X25519KeyPair>* keys = nullptr;
  std::string psk;
  const RunOptions* opts = nullptr;
  ResultsCsv* csv = nullptr;
  bool write_topology_records = false;  // the first build records sysctls and offloads
  int round = 0;                        // interleaved: the round number (1-based); 0: one bring-up for all
  std::function<bool(const std::string& test, int sample)> measured;  // already in the CSV (resume)
  // What the topology is built from: `plan`, or, for a product with [[service]]s, `plan`
  // with their nodes (plan_with_services). run_product_round sets it; the caller need not.
  const Plan* build_plan = nullptr;
  PhaseClock* clock = nullptr;               // where the round's wall time goes (run_timing.h); may be null
  EnvironmentRecord* environment = nullptr;  // what the round learns goes there (the first build's records, offloads)
};

// Makes a product x test's raw and log directories in the run directory; their paths in
// *raw and *logs.
Status dirs_for(const std::string& run_dir, const std::string& product, const std::string& test, std::string* raw,
                std::string* logs);

// Runs `samples` (1-based numbers) of every test. Rows go to the CSV and into *rows;
// what the product did goes into *outcome (merged over rounds). A failure of the lab
// itself (not of the product) comes back as an error.
// Rows for samples a product could not run (not measured yet, unless interrupted), with
// the reason; they go to the CSV and into *rows.
Status fail_rows(const RoundContext& c, const std::vector<int>& samples, const std::string& why,
                 std::vector<SampleRow>* rows, bool* interrupted);

Status run_product_round(const RoundContext& c, const std::vector<int>& samples, bool plaintext_check,
                         ProductOutcome* outcome, std::vector<SampleRow>* rows, bool* interrupted);

}  // namespace vpnlab
