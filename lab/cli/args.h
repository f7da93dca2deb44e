// The command line: every option once (its value's name and help line, from which each
// verb's --help is generated) and the parser every verb shares; a verb rejects the options
// it does not list.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/app/run_diff.h"
#include "lab/base/exit_codes.h"
#include "lab/base/result.h"

namespace vpnlab {

struct Args {
  std::vector<std::string> positional;
  std::vector<std::string> products;
  std::optional<int> samples;
  std::optional<double> duration_s;
  std::string out_dir = "results";
  bool out_given = false;  // --out was given (history export/report have their own default)
  std::string backend;     // --backend: instead of [lab] backend
  std::string keys_dir;
  std::string resume_dir;
  std::string from_dir;            // run/plan --from RUN_DIR; product new --from PRODUCT
  std::string binary;              // product new --binary PATH
  std::string history_path;        // --history PATH: the history file (default: default_history_path())
  std::string test;                // compare --test T
  std::vector<std::string> tests;  // run/plan --test T...: these tests of the file only
  bool effects = false;            // compare --effects: the swept axes' effects
  std::string metric;              // history --metric M
  bool by_version = false;         // history --by version
  bool jsonl = false;              // history export --jsonl
  std::string rows_jsonl;          // run --rows-jsonl FILE|-: every row as a JSON line
  std::string vs;                  // run/report --vs PRODUCT: every other product against it
  bool file_order = false;         // run/report --sort file: the table in the order products ran
  std::optional<double> threshold;
  Thresholds cost_thresholds;        // --threshold-cpu, --threshold-rss, --threshold-p99
  std::optional<double> precision;   // --precision 2%: adaptive sampling (lab/run/adaptive.h)
  std::optional<double> max_time_s;  // --max-time 15m
  std::optional<double> budget_s;    // suite --budget 20m
  std::optional<int> min_rounds;     // --min-rounds 5
  std::vector<int> nodes;            // scale --nodes 5,25: mesh sizes
  bool dry_run = false;
  bool replace = false;     // history import --replace: a run id there already with other rows is replaced
  bool no_build = false;    // run --no-build: a registry product not built yet is an error, not built first
  bool no_history = false;  // run --no-history: the run is not added to the history
  bool no_pin = false;
  bool sequential = false;
  bool relative = false;
  bool force = false;  // diff --force: compare runs of different topologies or pinning
  bool rebuild = false;
  bool json = false;      // --json: machine-readable output (json_output.h)
  bool markdown = false;  // diff --markdown: the verdicts as a Markdown table (CI step summaries)
  bool help = false;
  bool quiet = false;    // -q: warnings and errors only (the table still goes to stdout)
  bool verbose = false;  // -v: debug detail
};

// Every option once: its value's name ("" for a flag), its help line and its parser, which
// sets its field of Args or returns why the value is refused (then a usage error, exit 2).
// A verb lists the options it takes; its --help is generated from this table.
struct OptionDef {
  const char* name;
  const char* value;
  const char* help;
  std::string (*parse)(Args& into, const std::string& value);
};

const std::vector<OptionDef>& option_defs();
const OptionDef* option_def(const std::string& name);
// One option's help, after its two-space indent: "--out DIR" and its text in a 17-column
// field; a longer head gets its text on the next line, where continuation lines are.
std::string help_line(const std::string& head, const std::string& help);

// Prints "vpnlab: error: MSG" and the verb's help hint; returns kExitUsage.
int usage_error(const std::string& verb, const std::string& msg);
// Prints the error (file:line:col, message, hint); returns kExitError.
int fail(const Error& e);
// True as root; otherwise prints that `verb` creates network namespaces and needs root.
bool need_root(const std::string& verb);

// Parses the options every verb may take; a verb rejects those it does not use (printed,
// then nullopt).
std::optional<Args> parse_args(const std::string& verb, const std::vector<std::string>& argv,
                               const std::vector<std::string>& allowed);

}  // namespace vpnlab
