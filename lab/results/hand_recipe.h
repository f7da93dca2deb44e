// The hand recipe of one product in one run: the commands vpnlab ran for it, written out
// so that a person can run them one by one on the lab `vpnlab up` builds and check a
// figure without vpnlab's runner: the product's own commands as round 1 ran them, in their
// order (what vpnlab did through netlink as the `ip` command that does the same), then for
// each test the first sample's servers and clients. Read from the LOG.cmd
// files a run keeps beside every process's output (lab/base/process.cpp), so the recipe is
// what ran, not what a spec says should run.
#pragma once
#include <string>
#include <vector>

#include "lab/record/results_csv.h"

namespace vpnlab {

// `rows`: the run's rows (each test's client and server nodes); `topology` as the user
// gives it to `vpnlab up`. Empty when the run kept no command of the product.
std::string hand_recipe(const std::string& run_dir, const std::string& topology, const std::string& product,
                        const std::vector<SampleRow>& rows);

// One recorded command (LOG.cmd) as a line typed in a node's shell: "b$ taskset -c 1 env
// K=V argv..." ("host$" for one the host ran), with " &" when it runs until stopped. Words a
// shell would split or expand are single-quoted. Empty when the text is not a LOG.cmd.
std::string recipe_line(const std::string& cmd_text, const std::string& node);

}  // namespace vpnlab
