// The command line: the options several verbs share, each once (its value's name and help
// line, from which each verb's --help is generated), the parser every verb uses, and the
// pieces a verb's own options are made of (Option<T>, own_options, parse_own: an option only
// one verb takes lives in that verb's file). A verb rejects the options it does not list.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/base/exit_codes.h"
#include "lab/base/result.h"

namespace vpnlab {

// The options more than one verb takes (or that feed what verbs share: RunRequest, the
// sampling request); a verb's own options are parsed in its own file (parse_own below).
struct Args {
  std::vector<std::string> positional;
  // The verb's own options as given, name and value in order: its file's parse_own() reads them.
  std::vector<std::pair<std::string, std::string>> own;
  std::vector<std::string> products;
  std::optional<int> samples;
  std::optional<double> duration_s;
  std::string out_dir = "results";
  bool out_given = false;  // --out was given (history export/report have their own default)
  std::string backend;     // --backend: instead of [lab] backend
  std::string keys_dir;    // run --keys DIR (a field of the RunRequest run and plan share)
  std::string resume_dir;
  std::string from_dir;            // run/plan --from RUN_DIR; product new --from PRODUCT
  std::string history_path;        // --history PATH: the history file (default: default_history_path())
  std::string test;                // compare --test T
  std::vector<std::string> tests;  // run/plan --test T...: these tests of the file only
  std::string vs;                  // run/report --vs PRODUCT: every other product against it
  bool file_order = false;         // run/report --sort file: the table in the order products ran
  std::optional<double> threshold;
  std::optional<double> precision;   // --precision 2%: adaptive sampling (lab/run/adaptive.h)
  std::optional<double> max_time_s;  // --max-time 15m
  std::optional<int> min_rounds;     // --min-rounds 5
  bool no_build = false;             // run --no-build: a registry product not built yet is an error, not built first
  bool no_history = false;           // run --no-history: the run is not added to the history
  bool no_pin = false;
  bool sequential = false;
  bool force = false;     // diff --force: compare runs of different topologies or pinning
  bool json = false;      // --json: machine-readable output (json_output.h)
  bool markdown = false;  // diff --markdown: the verdicts as a Markdown table (CI step summaries)
  bool help = false;
  bool quiet = false;    // -q: warnings and errors only (the table still goes to stdout)
  bool verbose = false;  // -v: debug detail
};

// Why an option's value is refused (then a usage error, exit 2); empty: taken.
using Refusal = std::string;

// An option as help, completion and the man page show it: its name, its value's name ("" for
// a flag) and its help line.
struct OptionText {
  const char* name;
  const char* value;
  const char* help;
  // What bash completion offers as its value (null: a directory when the value's name says
  // DIR, else a file).
  std::vector<std::string> (*values)() = nullptr;
};

// An option and its parser, which sets its field of T: the shared Args (option_defs()), or
// the options struct a verb's own file defines.
template <class T>
struct Option {
  const char* name;
  const char* value;
  const char* help;
  Refusal (*parse)(T& into, const std::string& value);
  std::vector<std::string> (*values)() = nullptr;  // as OptionText's
  OptionText text() const { return {name, value, help, values}; }
};

// The parsers of a flag and of a value taken as it is, for any options struct:
// set_flag<&Args::json>, set_text<&HistoryOptions::metric>.
template <class M>
struct member_owner;
template <class T, class F>
struct member_owner<F T::*> {
  using type = T;
};
template <auto Field>
Refusal set_flag(typename member_owner<decltype(Field)>::type& into, const std::string&) {
  into.*Field = true;
  return {};
}
template <auto Field>
Refusal set_text(typename member_owner<decltype(Field)>::type& into, const std::string& value) {
  into.*Field = value;
  return {};
}

// An option's value as a number: the whole string, or nothing ("12x", "", " 3", out of range).
std::optional<int> whole_int(const std::string& v);
std::optional<double> whole_double(const std::string& v);

// The shared options, each once: a verb lists those it takes by name; its --help is
// generated from this table and its own.
using OptionDef = Option<Args>;

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

// Parses a verb's words: `allowed` names the options it takes (shared ones and its own,
// whose texts are `own`); an option it does not take is printed as a usage error, then
// nullopt. A shared option sets its field of Args; an own option is kept in Args::own as
// given, for the verb's parse_own().
std::optional<Args> parse_args(const std::string& verb, const std::vector<std::string>& argv,
                               const std::vector<std::string>& allowed, const std::vector<OptionText>& own = {});

// Sets `into` from the verb's own options as given: the first refused value's reason, or "".
template <class T>
Refusal parse_own_into(const std::vector<Option<T>>& table, const Args& given, T* into) {
  for (const auto& [name, value] : given.own)
    for (const auto& o : table)
      if (name == o.name)
        if (Refusal refused = o.parse(*into, value); !refused.empty()) return refused;
  return {};
}

// A verb's own options as its entry in the verb table holds them: their texts (help,
// completion, the man page) and a check that parses them into a scratch struct, so that a
// refused value is a usage error before --help is answered (and the fuzzer reaches them).
struct OwnOptions {
  std::vector<OptionText> texts;
  std::function<Refusal(const Args&)> check;
};

// `table` is a constant at namespace scope in the verb's file: the check keeps a reference.
template <class T>
OwnOptions own_options(const std::vector<Option<T>>& table) {
  OwnOptions own;
  for (const auto& o : table) own.texts.push_back(o.text());
  own.check = [&table](const Args& given) {
    T scratch;
    return parse_own_into(table, given, &scratch);
  };
  return own;
}

// The verb's body starts here: its own options struct from what was given (a refused value
// is printed as a usage error and its exit code returned).
template <class T>
std::optional<int> parse_own(const std::string& verb, const std::vector<Option<T>>& table, const Args& given, T* into) {
  if (Refusal refused = parse_own_into(table, given, into); !refused.empty()) return usage_error(verb, refused);
  return std::nullopt;
}

}  // namespace vpnlab
