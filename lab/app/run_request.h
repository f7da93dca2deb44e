// What `run`, `plan`, `validate` and `up` ask for, turned into a checked plan: products
// resolved ("all" = every product that can run here on this shape), "auto" MTU resolved,
// every product checked against the shape and MTU. `run --from` rebuilds a request from
// an earlier run's provenance.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/run/product_probe.h"

namespace vpnlab {

struct RunRequest {
  std::string topology_file;
  std::vector<std::string> products;  // empty: [bench] products
  std::vector<std::string> tests;     // empty: every [[bench.test]]; else these only (a suite's scenario)
  std::optional<int> samples;
  std::optional<double> duration_s;
  bool no_pin = false;
  bool sequential = false;
  std::string keys_dir;
  std::string backend;  // --backend ("" = the file's)
  std::string run_id;   // "" = a new one; `exec` plans the kept lab's again (its names)
  // --resume: the earlier run's adaptive sampling (none: it measured a fixed count).
  std::optional<double> precision;
  double max_time_s = 0;
  // `run --from`: the earlier run's keys, copied into the new run (never used in place).
  std::string keys_from;
};

// "20261130-093226-ba66", and its last part (the namespace tag) in *tag.
std::string make_run_id(std::string* tag);

Result<Plan> plan_request(const RunRequest& request);

// The kernel features a product needs, probed where it will run: on this host (netns, and
// hosts as before: the emulated ones are this host), not at all for guests (their kernel).
CapabilityProbe capability_probe_for(const std::string& backend);
// Availability as a run of `backend` would find it.
Availability availability_for(const ProductSpec& spec, const std::string& backend);

// `run --from RUN_DIR`: the earlier run's topology copy, products as requested, samples,
// duration, pinning, interleaving and keys; the products' versions must still match.
Result<Plan> plan_like_run(const std::string& run_dir, RunRequest* request);

// `run --resume RUN_DIR`: the resumed run's own samples, duration, pinning, order and
// products (RUN_DIR/environment.json) fill what the command line left out; a value given
// that differs is refused naming both, so the resumed rows measure what the first ones did.
Status resume_request(const std::string& run_dir, RunRequest* request);
// Before planning: the topology file is the one the run measured (its copy in RUN_DIR).
// Every other difference would follow from another file, so this is said first.
Status check_resume_topology(const std::string& run_dir, const std::string& topology_file);
// After planning: the warm-up and the resolved products (in order) are the run's too.
Status check_resume_plan(const std::string& run_dir, const Plan& plan);

}  // namespace vpnlab
