// A product's running tunnels on one topology: one session over every VPN node, or, on a
// topology of [[chain]]s, one session per hop (a relay runs one instance per hop it ends,
// each with the hop's interface, port, files and logs). Samples read their counters
// through it, so a chain's traffic is proven on every hop's tunnel, not only at its ends.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lab/run/product_services.h"
#include "lab/run/product_session.h"

namespace vpnlab {

class ProductTunnels {
 public:
  // Starts the product on ctx.plan's VPN nodes: one session, or each hop's in chain order
  // but hops out of its reach (what started is stopped again when one fails; the error
  // names the hop).
  static Result<std::unique_ptr<ProductTunnels>> start(const ProductSession::Context& ctx);
  ~ProductTunnels();
  // ProductSession::check_templates for each session start() would make.
  static Status check_templates(const ProductSpec& spec, const Plan& plan);

  // Where a test's traffic from VPN node `from` to VPN node `to` is counted: each of the
  // two nodes, or on a chain both ends of every hop between them (and a native relay's
  // node, `relay`). `side` is the VPN node
  // whose share of the traffic the point must carry (from's or to's); `edge` says the
  // point is that node's own tunnel (not a relay's), where delivered packets are counted.
  struct Point {
    std::string key;  // "r1", or "r2 (hop 2)" on a chain
    size_t session = 0;
    std::string node, side;
    bool edge = true;
    bool relay = false;  // a native relay: its underlay carries both ways, its tunnel nothing
  };
  std::vector<Point> points(const std::string& from, const std::string& to) const;
  Result<TunnelCounters> read_counters(const Point& p);

  bool tunnel() const;
  double bringup_seconds() const { return bringup_s_; }  // the first start -> the last hop ready
  ProductSession& first() { return *sessions_.front(); }
  // The product's interfaces on a node (one per hop it ends on a chain).
  std::vector<std::string> interfaces(const std::string& node) const;
  // As ProductSession's, over every session: usage summed per node.
  std::map<std::string, ProductSession::DaemonUsage> daemon_usage() const;
  std::vector<std::pair<std::string, NodeProcess*>> daemon_processes() const;
  std::vector<std::pair<std::string, pid_t>> daemon_pids() const;
  Status repin_daemons();
  // The port `from`'s packets toward `to` use on `from`'s underlay: its hop's, and where a
  // native relay carries them, the relay's (Tailscale's DERP: TCP 3340, not its own UDP).
  int underlay_port(const std::string& from, const std::string& to) const;
  Status check_daemons();
  // The spec's [path] check from VPN node `from` to `to` (ProductSession::check_path); a
  // chain's hops are proven by their counters alone.
  std::string check_path(const std::string& from, const std::string& to);
  std::vector<int> daemon_pidfds() const;
  void stop();  // the last started first, then the product's services
  // The product's services (started before the tunnels): stopped after them.
  void keep_services(std::unique_ptr<ProductServices> services) { services_ = std::move(services); }

 private:
  ProductTunnels() = default;
  const Plan* plan_ = nullptr;
  const ProductSpec* spec_ = nullptr;
  std::vector<std::unique_ptr<Plan>> hop_plans_;         // each hop session's plan
  std::vector<std::unique_ptr<ProductSpec>> hop_specs_;  // ... and its spec (the hop's interface)
  std::vector<std::unique_ptr<ProductSession>> sessions_;
  // Per hop of the plan, its session's index; -1 for a hop the product cannot carry (a
  // native relay chain without a relay of its own: no test that crosses it is run).
  std::vector<int> session_of_hop_;
  size_t session_of(const PlanHop* hop) const;
  double bringup_s_ = 0;
  std::unique_ptr<ProductServices> services_;
};

}  // namespace vpnlab
