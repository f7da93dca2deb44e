// `vpnlab scale FILE`: mesh scale, one fresh mesh per size and product.
#include "lab/cli/scale_command.h"
#include "lab/cli/verbs/verb.h"

namespace vpnlab {
namespace {

int cmd_scale(const Args& a) {
  if (a.positional.size() != 1) return usage_error("scale", "give one scale file (e.g. topologies/mesh-scale.toml)");
  return run_scale(ScaleRequest{a.positional[0], a.products, a.nodes, a.out_dir});
}

}  // namespace

extern const Verb kScaleVerb = {
    "scale",
    "scale FILE [--product NAME]... [--nodes N[,N]...] [--out DIR]",
    "Mesh scale: for each mesh size of FILE's [scale] (N nodes on one bridge, every node a peer of every other) and "
    "each\n"
    "product, on a fresh mesh: seconds until every node pair answers through the tunnel (all probed at once), the\n"
    "machine's CPU over that bring-up, each node's daemon RSS and threads, and one throughput sample between the "
    "first\n"
    "and the last node. Rows go to DIR/<run_id>/scale.csv; products that cannot form a mesh are refused with the "
    "reason.\n"
    "Exit codes: 0 every row complete; 5 some row failed (the table says why); 1 error; 130 interrupted.",
    {"--product", "--nodes", "--out"},
    cmd_scale};

}  // namespace vpnlab
