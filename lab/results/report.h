// report.md and report.html (self-contained: inline SVG, inline CSS) plus plots/*.svg,
// generated from a run directory's raw files alone (results.csv, raw iperf3 JSON,
// environment.json, audit.json), so `vpnlab report RUN_DIR` redoes them exactly.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/base/result.h"
#include "lab/results/report_kinds.h"
#include "lab/results/summary.h"

namespace vpnlab {

// "How this was measured": the method's lines from an environment.json that passed
// check_environment (lab/results/run_files.h).
std::vector<std::string> method_items(const nlohmann::json& env);
// What an audit.json that passed check_audit says: teardown leftovers, retried bring-ups.
std::vector<std::string> audit_warnings(const nlohmann::json& audit);

// Per-second Gbit/s of one sample, summed over its iperf3 processes (raw/PRODUCT/TEST/
// sample-N.json or sample-N-pK.json); empty when the files are missing.
std::vector<std::pair<double, double>> throughput_over_time(const std::string& run_dir, const std::string& product,
                                                            const std::string& test, int sample);

// view.vs: the reference of the "Product vs product" section (default: the first tunnel);
// view.file_order: the per-test tables in the order the products ran, not fastest first.
Status write_report(const std::string& run_dir, const ResultView& view = {});

// A page of its own (report.html and report.md in `dir`, plots in dir/plots) from sections:
// what `vpnlab scale` writes.
Status write_sections_report(const std::string& dir, const std::string& title,
                             const std::vector<KindSection>& sections);

}  // namespace vpnlab
