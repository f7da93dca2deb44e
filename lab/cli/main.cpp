// vpnlab: the command line. It only dispatches: each verb is an entry in lab/cli/verbs/
// (its options, help and body), the help texts come from the tables (lab/cli/help.h).
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "lab/base/exit_codes.h"
#include "lab/base/terminal_door.h"
#include "lab/cli/help.h"
#include "lab/cli/verbs/verb.h"
#include "lab/cli/version.h"
#include "lab/model/toml_reader.h"
#include "lab/run/interrupt.h"
#include "lab/run/progress.h"

namespace vpnlab {
namespace {

// The words that are not verbs: the version, the help, help2man's text, bash completion.
std::optional<int> answer_without_verb(int argc, char** argv) {
  if (argc < 2) {
    print_usage(std::cerr);  // answers a mistake: to stderr
    return kExitUsage;
  }
  const std::string first = argv[1];
  if (first == "--version" || first == "-V" || first == "version") {
    std::cout << version_text();
    return kExitOk;
  }
  // help2man turns this into the man page (a line "NAME:" starts a section; option lines
  // become tagged paragraphs); --exit-codes-h2m is its include file's EXIT STATUS.
  if (first == "--help-all") {
    print_man_text(std::cout);
    return kExitOk;
  }
  if (first == "--exit-codes-h2m") {
    std::cout << exit_codes_roff();
    return kExitOk;
  }
  if (first == "_complete") return cmd_complete(std::vector<std::string>(argv + 2, argv + argc));
  if (first == "--help" || first == "-h" || first == "help") {
    print_usage(std::cout);
    return kExitOk;
  }
  return std::nullopt;
}

int unknown_verb(const std::string& verb) {
  std::vector<std::string> names;
  for (const Verb* v : verb_table()) names.push_back(v->name);
  std::string guess = closest_match(verb, names);
  std::cerr << "vpnlab: error: unknown verb '" << verb
            << "'\nhint: " << (guess.empty() ? "see 'vpnlab --help'" : "did you mean '" + guess + "'?") << "\n";
  return kExitUsage;
}

int dispatch(const Verb& v, const std::vector<std::string>& words) {
  auto args = parse_args(v.name, words, v.options, v.own.texts);
  if (!args) return kExitUsage;
  if (v.own.check)
    if (Refusal refused = v.own.check(*args); !refused.empty()) return usage_error(v.name, refused);
  if (args->quiet) spdlog::set_level(spdlog::level::warn);
  if (args->verbose) spdlog::set_level(spdlog::level::debug);
  if (args->help) {
    print_verb_help(v);
    return kExitOk;
  }
  // Every expected failure is a Result; anything that still escapes (a bug, memory) is
  // one line and exit 1, not an abort: the run's RAII has already torn the lab down.
  try {
    return v.run(*args);
  } catch (const std::exception& e) {
    std::cerr << "vpnlab: error: " << v.name << ": unexpected failure: " << e.what()
              << "\nhint: this is a bug in vpnlab; 'vpnlab cleanup' removes anything a run left\n";
    return kExitError;
  }
}

int cli_main(int argc, char** argv) {
  // Progress and warnings go to stderr; stdout carries only results (the table, listings).
  install_terminal_door();  // under std::cout and std::cerr, before anything is printed
  Progress::install_logger();
  ignore_broken_pipes();
  if (auto answered = answer_without_verb(argc, argv)) return *answered;
  const Verb* verb = find_verb(argv[1]);
  if (!verb) return unknown_verb(argv[1]);
  return dispatch(*verb, std::vector<std::string>(argv + 2, argv + argc));
}

}  // namespace
}  // namespace vpnlab

int main(int argc, char** argv) { return vpnlab::cli_main(argc, argv); }
