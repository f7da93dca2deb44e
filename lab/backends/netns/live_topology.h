// A topology built from a plan: its namespaces, links and addresses, alive until teardown.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lab/base/result.h"
#include "lab/kernel/namespace.h"
#include "lab/model/plan.h"

namespace vpnlab {

struct BuildTimings {
  double namespaces_ms = 0;
  double links_ms = 0;
};

struct TeardownReport {
  std::vector<std::string> leftovers;  // what the audit found before deleting
  double teardown_ms = 0;
};

// A host NIC the lab may take (hosts backend): it exists in this thread's namespace and
// has no IPv4 address (one with addresses carries something else: SSH, the host's own
// traffic). `host` names it in messages.
Status check_nic_free(const std::string& host, const std::string& nic);

class LiveTopology {
 public:
  // Builds every namespace, bridge, veth and address of `plan`; on failure removes
  // what was already made.
  static Result<std::unique_ptr<LiveTopology>> build(const Plan& plan, BuildTimings* timings = nullptr);
  // Adds (replaces) the plan's routes of one kind: `always` ones are part of build();
  // the runner adds the `tunnel` ones once a product is up, `baseline` ones for the
  // no-tunnel baseline.
  Status add_routes(const Plan& plan, PlanRoute::When when);
  // Re-attaches to a topology made by `vpnlab up` (namespaces found by name).
  static Result<std::unique_ptr<LiveTopology>> attach(const std::vector<std::string>& ns_names);

  ~LiveTopology();
  LiveTopology(const LiveTopology&) = delete;
  LiveTopology& operator=(const LiveTopology&) = delete;

  Netns& ns_of_node(const std::string& node);
  Netns& ns(const std::string& name);
  // The node's private mount namespace, made on first use.
  Result<int> mount_ns_of_node(const std::string& node);
  std::vector<uint64_t> inodes() const;
  const std::vector<Netns>& namespaces() const { return namespaces_; }

  // What a product left behind. `leftovers`: processes in lab namespaces, links the plan
  // did not make, extra ip rules — a failed teardown. `run_files`: files in a node's
  // private /run, shown but harmless (that tmpfs goes with the node's mount namespace).
  struct Audit {
    std::vector<std::string> leftovers;
    std::vector<std::string> run_files;
  };
  Audit audit() const;
  // Ends every process in the lab namespaces, removes the namespaces and waits until the
  // kernel has let go of each (no process, fd or nsfs mount refers to its inode).
  Status teardown(double timeout_s = 10);

 private:
  LiveTopology() = default;
  std::vector<Netns> namespaces_;
  std::map<std::string, std::string> node_ns_;
  std::map<std::string, std::vector<std::string>> expected_links_;  // ns -> link names
  bool torn_down_ = false;
  // Host NICs taken into node namespaces (plan.nics), given back at teardown.
  struct TakenNic {
    PlanNic plan;
    int mtu = 0;
    bool up = false;
  };
  std::vector<TakenNic> taken_;
  UniqueFd home_fd_;  // the namespace the NICs came from (the builder's)
  Status take_nic(const PlanNic& nic);
  // neighbours = "static": each node on the bridge knows every other one's MAC for good.
  Status add_static_neighbours(const Plan& plan, const PlanBridge& bridge);
  Status return_nics();
};

}  // namespace vpnlab
