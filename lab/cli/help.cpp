#include "lab/cli/help.h"

#include <cctype>
#include <iostream>
#include <regex>

#include "lab/base/exit_codes.h"
#include "lab/base/wrap_text.h"

namespace vpnlab {

namespace {

// A synopsis as one line: its hand-made breaks go, and wrap_line breaks it where the terminal needs.
std::string one_line_synopsis(const Verb& v) {
  return std::regex_replace(std::string(v.synopsis), std::regex("\n +"), " ");
}

}  // namespace

void print_verb_help(const Verb& v, bool for_man) {
  std::cout << wrap_lines((for_man ? "  vpnlab " : "usage: vpnlab ") + one_line_synopsis(v), 4) << "\n\n"
            << wrap_lines(v.help) << "\n\n"
            << (for_man ? "" : "options:\n");
  for (const auto& name : v.options) {
    const std::optional<OptionText> o = verb_option(v, name);
    std::string head = std::string(o->name) + (*o->value ? std::string(" ") + o->value : "");
    const char* help = o->help;
    for (const auto& [option, own] : v.option_help)
      if (option == name) help = own;
    std::cout << "  " << help_line(head, help);
  }
  std::cout
      << "  -q, --quiet      warnings and errors only\n  -v, --verbose    debug detail\n  -h, --help       this help\n"
         "  --               what follows is an argument (a file, a run, a name), even if it starts with '-'\n";
}

// To stdout when asked for (--help), to stderr when it answers a mistake (no verb at all).
// Every verb's help in one text, laid out for help2man (cmake/vpnlab.h2m adds EXIT STATUS,
// ENVIRONMENT and FILES): "Usage:"/"or:" lines become the SYNOPSIS, each "Verb:" line a
// subsection, option lines tagged paragraphs.
void print_man_text(std::ostream& out) {
  out << "Usage: vpnlab VERB [ARGS]\n";
  for (const Verb* v : verb_table()) {
    std::string one_line = one_line_synopsis(*v);
    out << "  or:  vpnlab " << one_line << "\n";
  }
  out << "  or:  vpnlab --version\n\nEvery verb takes -q (warnings and errors only) and -v (debug detail); "
         "'vpnlab VERB --help' describes one verb.\n";
  for (const Verb* v : verb_table()) {
    std::string heading = v->name;
    heading[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(heading[0])));
    out << "\n" << heading << ":\n";
    print_verb_help(*v, /*for_man=*/true);
  }
}

void print_usage(std::ostream& out) {
  out << "usage: vpnlab VERB [ARGS]   (vpnlab --version or -V: the version)\n\nverbs:\n";
  for (const Verb* v : verb_table()) out << wrap_line("  " + one_line_synopsis(*v), 4);
  out << "\nevery verb takes -q (warnings and errors only) and -v (debug detail).\n'vpnlab VERB --help' describes one "
         "verb.\n\n"
      << exit_codes_usage_text();
}

// What bash completion offers (completion/vpnlab.bash calls `vpnlab _complete CWORD
// WORDS...`, WORDS without the leading "vpnlab"): verbs, a verb's options, product names
// after --product; "_files" or "_dirs" where the shell should complete paths.
int cmd_complete(const std::vector<std::string>& words_in) {
  if (words_in.empty()) return 0;
  int cword = 0;
  try {
    cword = std::stoi(words_in[0]);
  } catch (...) {
    return 0;
  }
  std::vector<std::string> words(words_in.begin() + 1, words_in.end());
  // COMP_CWORD counts "vpnlab" as word 0; the word being completed may be past the end.
  if (cword < 1 || static_cast<size_t>(cword) > words.size() + 1) return 0;
  const std::string cur = static_cast<size_t>(cword) <= words.size() ? words[cword - 1] : "";
  auto offer = [&](const std::string& c) {
    if (c.rfind(cur, 0) == 0) std::cout << c << "\n";
  };
  if (cword <= 1) {
    for (const Verb* v : verb_table()) offer(v->name);
    offer("--help");
    offer("--version");
    return 0;
  }
  const Verb* verb = find_verb(words[0]);
  if (!verb) return 0;
  const std::string prev = words[cword - 2];
  if (const auto o = verb_option(*verb, prev); o && *o->value) {
    if (o->values) {
      for (const auto& v : o->values()) offer(v);
    } else if (std::string(o->value).find("DIR") != std::string::npos) {
      std::cout << "_dirs\n";
    }
    return 0;
  }
  if (!cur.empty() && cur[0] == '-') {
    for (const auto& name : verb->options) offer(name);
    for (const char* o : {"--help", "--quiet", "--verbose"}) offer(o);
    return 0;
  }
  // The positional words before the one completed (option values left out): what comes next.
  std::vector<std::string> positional;
  for (int i = 1; i < cword - 1; ++i) {
    const std::string& w = words[static_cast<size_t>(i)];
    if (!w.empty() && w[0] == '-') {
      if (const auto o = verb_option(*verb, w); o && *o->value) ++i;
      continue;
    }
    positional.push_back(w);
  }
  if (verb->complete)
    if (auto words = verb->complete(positional)) {
      for (const auto& w : *words) offer(w);
      return 0;
    }
  std::cout << "_files\n";
  return 0;
}

}  // namespace vpnlab
