// `vpnlab history`: the runs kept in the history file (lab/history), and `history import RUN...`
// to add run directories to it (the runs made before the history existed count too).
#pragma once
#include "lab/cli/args.h"

namespace vpnlab {

int cmd_history(const Args& a);

}  // namespace vpnlab
