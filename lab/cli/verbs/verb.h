// A verb of the command line: one file per verb in this folder (with a header of the same
// name where a test or the help uses more of it: product.h, schema.h), each defining its entry
// (name, synopsis, help, the options it takes: shared ones from lab/cli/args.h's table by
// name, its own in its file's table; and what runs);
// verb_table.cpp lists them in the order `vpnlab --help` prints them. main.cpp only
// dispatches. A new verb: its file, its line in verb_table.cpp, its line in CMakeLists.txt.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/app/run_request.h"
#include "lab/app/sampling.h"
#include "lab/cli/args.h"

namespace vpnlab {

struct Verb {
  const char* name;
  const char* synopsis;
  const char* help;
  // The options it takes, in the order its --help lists them: shared ones (args.h's table)
  // and its own (own_options).
  std::vector<std::string> options;
  int (*run)(const Args&);
  // An option whose meaning differs for this verb: its help here, not the shared table's.
  std::vector<std::pair<std::string, const char*>> option_help = {};
  // What the shell may offer as the next positional word, given those before it (option
  // values left out): sub-verbs, names; nullopt: a file. Null: always a file.
  std::optional<std::vector<std::string>> (*complete)(const std::vector<std::string>& positional) = nullptr;
  // The options only this verb takes: own_options() of its file's table, whose parsers set
  // the verb's own options struct (parse_own, first thing in its body).
  OwnOptions own = {};
};

// An option `v` takes, as its help shows it: its own, else the shared table's; null if it
// takes none of that name.
std::optional<OptionText> verb_option(const Verb& v, const std::string& name);

// A verb's sub-verbs (image build, history check): offered as its first positional word,
// files after it.
std::optional<std::vector<std::string>> first_word_of(const std::vector<std::string>& positional,
                                                      std::vector<std::string> words);
// Every verb, in usage order.
const std::vector<const Verb*>& verb_table();
const Verb* find_verb(const std::string& name);

// What several verbs share.
// "results/run/" and "results/run" name one run: messages then say ".../environment.json".
std::string run_dir_arg(std::string dir);
// `rerun`: `run --from`, whose recorded sample count is the round limit (for `plan`, --from
// only lends its spread).
SamplingRequest sampling_request_of(const Args& a, bool rerun);
// Adaptive sampling's own options without --precision are a usage error (exit 2), caught
// before anything is planned.
std::optional<int> sampling_usage(const Args& a, const std::string& verb);
RunRequest request_of(const Args& a, const std::string& file);

}  // namespace vpnlab
