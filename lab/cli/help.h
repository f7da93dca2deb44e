// What the command line says of itself, made from the verb table (lab/cli/verbs/) and the
// option and exit-code tables: `vpnlab --help`, `vpnlab VERB --help`, the text help2man
// turns into the man page, and what bash completion offers.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "lab/cli/verbs/verb.h"

namespace vpnlab {

void print_verb_help(const Verb& v, bool for_man = false);
// Every verb's help in one text, laid out for help2man.
void print_man_text(std::ostream& out);
void print_usage(std::ostream& out);
// completion/vpnlab.bash calls `vpnlab _complete CWORD WORDS...`.
int cmd_complete(const std::vector<std::string>& words_in);

}  // namespace vpnlab
