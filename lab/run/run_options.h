// What a run is given (RunOptions) and what it learns of each product (ProductOutcome):
// shared by the runner and one product's round (product_round.h).
#pragma once
#include <set>
#include <string>
#include <vector>

#include <functional>
#include <optional>

#include "lab/base/sequential.h"
#include "lab/run/product_probe.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

struct RunOptions {
  std::string run_dir;  // results/<run_id>
  std::string products_dir;
  std::string keys_dir;   // reuse this key set (empty: generate into RUN/secrets/keys)
  std::string keys_from;  // copy this earlier run's keys into RUN/secrets/keys first (run --from)
  bool resume = false;    // run_dir holds an earlier, unfinished run: add only missing rows
  int interrupt_fd = -1;
  // --rows-jsonl: every row appended to results.csv also goes here as one JSON line
  // (ResultsCsv::mirror_to); -1: nowhere. Not owned.
  int rows_jsonl_fd = -1;
  std::string rows_jsonl_name;
  // Builds the topology of one round on the plan's backend (lab/app passes the backend
  // entry's, so the runner depends on no backend).
  RuntimeFactory build_nodes;
  // The backend's answers about its machine(s): the kernel features products need (empty:
  // not probed here, guests have their own kernel), whether products run in guests, and
  // whether anything of a lab with this namespace prefix remains after the run (the run's
  // record goes only then; unset: nothing remains).
  CapabilityProbe probe_capabilities;
  bool in_guests = false;
  std::function<bool(const std::string& ns_prefix)> lab_remains;
  // --precision: rounds go on until every watched ratio is known to the plan's target
  // (lab/base/sequential.h, lab/run/adaptive.h), at most plan.samples rounds and, with
  // max_time_s > 0, no round started that would end after it.
  std::optional<SequentialPlan> sequential;
  double max_time_s = 0;
  std::string crr_program = "vpnlab-crr";  // the crr tests' generator (the CLI gives its helper's path)
  // Meters (sample_meters.h meter_names()) left out of every sample: the meter-cost bench
  // switches each off in turn to see what it costs the tunnel. environment.json records them.
  std::set<std::string> meters_off;
};

struct ProductOutcome {
  std::string product;
  bool started = false;
  std::string failure;  // why it did not run, with log tail
  double bringup_s = 0;
  std::string plaintext;           // "" = the plaintext check passed; otherwise why not
  bool plaintext_checked = false;  // done once per product, on its first bring-up
  bool warmed_by_check = false;    // this round's check transfer stands for its first test's warm-up
  // One line per bring-up that failed and was tried again: its round, why, where its logs are.
  std::vector<std::string> failed_bringups;
  std::vector<std::string> leftovers;  // teardown audit: what its stop left running or configured
  std::vector<std::string> run_files;  // files it left in the nodes' private /run (discarded)
};

}  // namespace vpnlab
