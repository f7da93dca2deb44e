// `vpnlab scale FILE`: the mesh-scale sweep of a scale file (lab/model/scale_spec.h), each
// mesh size and product on a freshly built mesh, rows to OUT/<run id>/scale.csv and the
// table (lab/results/scale_table.h) to stdout.
#include <unistd.h>

#include <fstream>
#include <iostream>

#include <spdlog/spdlog.h>

#include "lab/app/cleanup.h"
#include "lab/app/run_request.h"
#include "lab/backends/netns/netns_runtime.h"
#include "lab/base/fs_util.h"
#include "lab/cli/args.h"
#include "lab/cli/verbs/verb.h"
#include "lab/kernel/namespace.h"
#include "lab/model/install_layout.h"
#include "lab/model/product_spec.h"
#include "lab/model/scale_spec.h"
#include "lab/results/report.h"
#include "lab/results/scale_table.h"
#include "lab/run/interrupt.h"
#include "lab/run/keys.h"
#include "lab/run/mesh_scale.h"
#include "lab/run/run_state.h"

namespace vpnlab {
namespace {

struct ScaleRequest {
  std::string file;
  std::vector<std::string> products;  // empty: the file's
  std::vector<int> sizes;             // empty: the file's
  std::string out_dir = "results";
};

// One product on one mesh size: planned (a product that cannot form a mesh is refused
// here, before anything exists), measured, its state on record while its lab exists.
Result<ScaleRow> one_mesh(const ScaleSpec& spec, int n, const std::string& product, const std::string& run_dir,
                          ScaleRound round, bool* interrupted) {
  std::string dir = run_dir + "/mesh-" + std::to_string(n);
  if (auto s = make_dirs(dir, 0750); !s) return s.error();
  std::string topo = dir + "/topology.toml";
  if (auto s = write_file(topo, mesh_topology_text(spec, n), 0640); !s) return s.error();
  RunRequest request;
  request.topology_file = topo;
  request.products = {product};
  auto spec_of = load_product(products_path(own_binary_dir()), product);
  if (!spec_of) return spec_of.error();
  auto plan = plan_request(request);
  if (!plan || !spec_of->tunnel) {
    ScaleRow refused{product, n};
    refused.reason =
        "refused: " + (plan ? "'" + product + "' makes no tunnel: there is no mesh to converge" : plan.error().message);
    return refused;
  }
  RunState state{plan->run_id, plan->lab, topo, dir, static_cast<int>(getpid()), false, plan->namespaces()};
  if (auto s = write_state(state); !s) return s.error();
  round.plan = &plan.value();
  round.run_dir = dir;
  auto row = measure_mesh(round, *spec_of, interrupted);
  if (list_namespaces(plan->ns_prefix).empty()) (void)remove_state(plan->run_id);
  return row;
}

// The exit code: 0 every measured row complete; 5 some row failed (its reason is in the
// table); 1 an error; 130 interrupted.
int run_scale(const ScaleRequest& request) {
  auto spec = load_scale_spec(request.file);
  if (!spec) return fail(spec.error());
  if (!request.products.empty()) spec->products = request.products;
  if (!request.sizes.empty()) spec->sizes = request.sizes;
  if (!need_root("scale")) return kExitError;
  auto lock = RunLock::acquire();
  if (!lock) return fail(lock.error());
  if (auto s = refuse_debris(); !s) return fail(s.error());
  std::string tag;
  std::string run_dir = request.out_dir + "/" + make_run_id(&tag);
  if (auto s = make_dirs(run_dir + "/secrets", 0700); !s) return fail(s.error());
  int largest = 0;
  for (int n : spec->sizes) largest = std::max(largest, n);
  std::vector<std::string> names;
  for (int i = 1; i <= largest; ++i) names.push_back("n" + std::to_string(i));
  ScaleRound round;
  auto keys = prepare_node_keys(run_dir + "/secrets/keys", names);
  if (!keys) return fail(keys.error());
  auto psk = prepare_run_psk(run_dir + "/secrets/keys");
  if (!psk) return fail(psk.error());
  round.keys = *keys;
  round.psk = *psk;
  round.build_nodes = build_netns_runtime;
  round.converge_timeout_s = spec->converge_timeout_s;
  round.interrupt_fd = install_interrupt_handlers();
  round.cpu_count = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  std::ofstream csv(run_dir + "/scale.csv");
  csv << scale_csv_header() << "\n";
  std::vector<ScaleRow> rows;
  bool interrupted = false;
  for (int n : spec->sizes)
    for (const auto& product : spec->products) {
      if (interrupted || vpnlab::interrupted()) break;
      spdlog::info("mesh of {} nodes: {}", n, product);
      auto row = one_mesh(*spec, n, product, run_dir, round, &interrupted);
      if (!row) return fail(row.error());
      csv << scale_csv_line(*row) << "\n" << std::flush;
      spdlog::info("  {}", row->converge_s >= 0 ? "converged in " + std::to_string(row->converge_s).substr(0, 5) + " s"
                                                : row->reason);
      rows.push_back(*row);
    }
  if (!csv) return fail(make_error("cannot write " + run_dir + "/scale.csv", "free some disk space"));
  std::cout << scale_table(rows) << "rows: " << run_dir << "/scale.csv\n";
  if (auto s = write_sections_report(run_dir, "vpnlab scale " + request.file, {scale_section(rows, round.cpu_count)});
      !s)
    spdlog::warn("no report: {}", s.error().message);
  else
    std::cout << "report: " << run_dir << "/report.html\n";
  if (interrupted || vpnlab::interrupted()) {
    std::cerr << "vpnlab: interrupted: the finished rows are in " << run_dir << "/scale.csv\n";
    return kExitInterrupted;
  }
  for (const auto& r : rows)
    if (!r.reason.empty() && r.reason.rfind("refused: ", 0) != 0) return kExitSomeInvalid;
  return 0;
}

// The options only `scale` takes.
struct ScaleOptions {
  std::vector<int> nodes;  // --nodes 5,25: mesh sizes
};

// "5,25" -> {5, 25}; the scale file's parser checks each size's range.
Refusal parse_nodes(ScaleOptions& into, const std::string& v) {
  size_t at = 0;
  while (at <= v.size()) {
    size_t comma = v.find(',', at);
    auto n = whole_int(v.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (!n || *n < 3 || *n > 1000) return "--nodes '" + v + "': give mesh sizes from 3 up, e.g. --nodes 5,25";
    into.nodes.push_back(*n);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return {};
}

const std::vector<Option<ScaleOptions>> kScaleOptions = {
    {"--nodes", "N[,N]...", "scale: these mesh sizes instead of the file's [scale] nodes", parse_nodes},
};

int cmd_scale(const Args& a) {
  ScaleOptions own;
  if (auto code = parse_own("scale", kScaleOptions, a, &own)) return *code;
  if (a.positional.size() != 1) return usage_error("scale", "give one scale file (e.g. topologies/mesh-scale.toml)");
  return run_scale(ScaleRequest{a.positional[0], a.products, own.nodes, a.out_dir});
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
    cmd_scale,
    {},
    nullptr,
    own_options(kScaleOptions)};

}  // namespace vpnlab
