// One product running on one freshly built topology: its files rendered with the run's
// identical values (addresses, port, MTU, keys), its steps carried out in each node, its
// tunnel proven to pass traffic, and its daemons stopped again.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lab/base/process.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/model/template.h"
#include "lab/run/keys.h"
#include "lab/runtime/node_runtime.h"

namespace vpnlab {

// What a command printed (its stdout file, read bounded) into the values `capture` names
// (value name -> prefix): each the rest of the first line that starts with its prefix ("" =
// all of it, trimmed). A prefix no line starts with is an error naming `where` and
// `program`. What [[prepare]] entries and run steps capture.
Status capture_values(const std::string& stdout_path, const std::vector<std::pair<std::string, std::string>>& capture,
                      const std::string& where, const std::string& program, std::map<std::string, std::string>* into);

// Data-plane threads, alike for every product: [bench] threads, else the node's pinned
// CPUs, else every CPU ({{threads}} in product templates).
int data_plane_threads(const Plan& plan, const PlanNode& node);

struct TunnelCounters {
  uint64_t if_rx = 0, if_tx = 0;  // overlay interface (netlink stats)
  uint64_t if_rx_packets = 0, if_tx_packets = 0;
  uint64_t underlay_rx = 0, underlay_tx = 0;  // the node's links toward other VPN nodes
  uint64_t underlay_rx_packets = 0, underlay_tx_packets = 0;
  bool has_product = false;
  uint64_t product_rx = 0, product_tx = 0;  // the product's own peer counters
  TunnelCounters operator-(const TunnelCounters& before) const;
};

class ProductSession {
 public:
  struct Context {
    const Plan* plan = nullptr;
    NodeRuntime* nodes = nullptr;
    const ProductSpec* spec = nullptr;
    const std::map<std::string, X25519KeyPair>* keys = nullptr;
    std::string run_dir;
    int interrupt_fd = -1;
    std::map<std::string, std::string> run_values;  // e.g. the run's pre-shared key
    int round = 0;  // interleaved runs: the round (logs go to logs/PRODUCT/round-N); 0: none
    // A bring-up tried once more after a failure (product_round.cpp bring_up): the retry's
    // logs go below the round's in attempt-N, so the failed attempt's stay where it left them.
    int attempt = 1;
    // > 0: ready once every node pair answered, all probed at once (mesh scale,
    // lab/kernel/mesh_sweep.h), within this many seconds instead of the spec's ready timeout.
    double mesh_timeout_s = 0;
    // One of several sessions of the product at once (a chain's hop: "hop-2"): its files,
    // secrets and logs go below that name, apart from the others'.
    std::string instance;
    // A run-scoped service's session (product_services.h): its steps run on its one node,
    // with no readiness pings and no MTU check (it carries no tunnel).
    bool service = false;
    // Per node: values its templates also see (where it reaches the product's services, and
    // what they printed for it: {{headscale_address}}, {{headscale_authkey}}).
    std::map<std::string, std::map<std::string, std::string>> node_values;
  };

  // Starts the product on every node and waits until each node's pings to every peer's
  // overlay address are answered. On failure everything started is stopped again and
  // the error carries the tail of the relevant log.
  static Result<std::unique_ptr<ProductSession>> start(const Context& ctx);
  ~ProductSession();

  // Renders every template, file name, argv, env value and link name of `spec` for every
  // node of `plan` (its VPN nodes) with stand-in keys and captured values, starting
  // nothing: a spec that cannot render is refused at validate, not at bring-up.
  // `node_values`: stand-ins for the values of the product's services (ProductServices).
  static Status check_templates(const ProductSpec& spec, const Plan& plan,
                                const std::map<std::string, std::map<std::string, std::string>>& node_values = {});

  double bringup_seconds() const { return bringup_s_; }
  // With mesh_timeout_s: the sweep that found the mesh converged.
  const SweepResult& convergence() const { return sweep_; }
  bool tunnel() const { return ctx_.spec->tunnel; }
  // Counters of a VPN node (underlay only for the baseline).
  Result<TunnelCounters> read_counters(const std::string& node);
  // Per node: peak RSS (kB) and OS threads of the product's daemons there, summed.
  struct DaemonUsage {
    int64_t rss_kb = 0;
    int threads = 0;
  };
  std::map<std::string, DaemonUsage> daemon_usage() const;
  // (node, pid) of every daemon started.
  std::vector<std::pair<std::string, pid_t>> daemon_pids() const;  // host pids (none in guests)
  std::vector<std::pair<std::string, NodeProcess*>> daemon_processes() const;
  // Pins every thread of the node's daemons (again: Go and others start threads later).
  Status repin_daemons();
  // The UDP/TCP port the product's packets use on the underlay (0 for the baseline); on a
  // native relay chain's ends, `relayed`, the port they reach the relay on.
  int underlay_port(bool relayed = false) const;
  // Daemons alive right now; a dead one is named with its log tail.
  Status check_daemons();
  // The daemons' pidfds, to wait on next to other events (readable when one exits).
  std::vector<int> daemon_pidfds() const;
  // Stops daemons, last started first (TERM, grace, KILL).
  void stop();

  // The [path] check after a sample from `node` to `peer`: "" when the spec has none or its
  // command printed what it expects; else why the path is not the one compared.
  // `relayed`: between a native relay chain's ends, where [path] relayed is what to see.
  std::string check_path(const std::string& node, const std::string& peer, bool relayed = false);
  // The [path] texts render for every (node, peer) of the plan.
  Status check_path_templates() const;
  // What `run` steps with `capture` captured on `node` (a service's auth key).
  std::map<std::string, std::string> captured(const std::string& node) const;

  // Parses "<key> <rx> <tx>" style output: sums the 1-based fields over all lines.
  static bool parse_counter_output(const std::string& text, int rx_field, int tx_field, uint64_t* rx, uint64_t* tx);

 private:
  explicit ProductSession(const Context& ctx) : ctx_(ctx) {}
  Status prepare();
  Status prepare_one(const PrepareStep& step, size_t index, const PlanNode* node, const PlanNode* peer);
  Status run_steps(const PlanNode& node, size_t index);
  // The executors of the step kinds (see run_steps' table).
  Status daemon_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc);
  Status run_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc);
  Status wait_link_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc);
  Status configure_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc);
  Status create_link_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc);
  Status sysctl_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc);
  Status wait_listen_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc);
  SpawnSpec step_process(const PlanNode& node, const ProductStep& step, const TemplateContext& tc);
  Error explain(Error symptom);
  Status wait_ready();
  Status check_mtu();
  // Values for templates: the node's own, the run's, and with `peer` that peer's as peer_*.
  TemplateContext context_for(const PlanNode* node, const PlanNode* peer = nullptr) const;
  void add_relay_lists(const PlanNode& node, TemplateContext* tc) const;
  std::map<std::string, std::string> peer_values(const PlanNode& node, const PlanNode& peer) const;
  Result<std::string> expand(const std::string& text, const TemplateContext& ctx) const;
  std::string instance() const;  // "<product>" or "<product>/<instance>"
  std::string node_dir(const std::string& node) const;
  std::string log_dir() const;
  // A LOG.cmd for what vpnlab did itself (netlink), as the command that does the same.
  void note_equivalent(const std::string& node, const std::vector<std::string>& argv);
  std::string secrets_dir(const std::string& node) const;

  struct Daemon {
    std::string node;
    std::string log;
    std::unique_ptr<NodeProcess> child;
  };
  Context ctx_;
  std::map<std::string, std::string> run_captured_;
  std::map<std::string, std::map<std::string, std::string>> node_captured_;
  std::vector<Daemon> daemons_;
  std::vector<std::pair<std::string, std::string>> created_links_;  // (node, ifname) of create_link steps
  double bringup_s_ = 0;
  SweepResult sweep_;
  int log_seq_ = 0;
};

}  // namespace vpnlab
