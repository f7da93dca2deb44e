#include "lab/run/product_tunnels.h"

#include <chrono>

#include "lab/model/finalize.h"
#include "lab/run/product_services.h"

namespace vpnlab {

Result<std::unique_ptr<ProductTunnels>> ProductTunnels::start(const ProductSession::Context& ctx) {
  std::unique_ptr<ProductTunnels> t(new ProductTunnels);
  t->plan_ = ctx.plan;
  t->spec_ = ctx.spec;
  const auto t0 = std::chrono::steady_clock::now();
  if (!ctx.plan->chained() || !ctx.spec->tunnel) {
    auto one = ProductSession::start(ctx);
    if (!one) return one.error();
    t->bringup_s_ = (*one)->bringup_seconds();
    t->sessions_.push_back(std::move(one.value()));
    return t;
  }
  for (size_t i = 0; i < ctx.plan->hops.size(); ++i) {
    const PlanHop& hop = ctx.plan->hops[i];
    t->session_of_hop_.push_back(-1);
    if (!hop_out_of_reach(*ctx.spec, hop).empty()) continue;
    t->session_of_hop_.back() = static_cast<int>(t->sessions_.size());
    t->hop_plans_.push_back(std::make_unique<Plan>(ctx.plan->hop_plan(i)));
    t->hop_specs_.push_back(std::make_unique<ProductSpec>(*ctx.spec));
    t->hop_specs_.back()->interface = hop_interface(ctx.spec->interface, hop.index);
    ProductSession::Context hc = ctx;
    hc.plan = t->hop_plans_.back().get();
    hc.spec = t->hop_specs_.back().get();
    hc.instance = hop.chain + "-hop-" + std::to_string(hop.index);
    auto s = ProductSession::start(hc);
    if (!s) {
      t->stop();
      return with_context(s.error(),
                          hop.chain + " hop " + std::to_string(hop.index) + " (" + hop.a + " - " + hop.b + ")");
    }
    t->sessions_.push_back(std::move(s.value()));
  }
  if (t->sessions_.empty())  // check_product_fits refuses such a product before this
    return make_error("product '" + ctx.spec->name + "' can carry none of the plan's hops", "leave it out of this run");
  t->bringup_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

ProductTunnels::~ProductTunnels() { stop(); }

size_t ProductTunnels::session_of(const PlanHop* hop) const {
  const int s = session_of_hop_.at(static_cast<size_t>(hop - plan_->hops.data()));
  return s < 0 ? sessions_.size() : static_cast<size_t>(s);  // out of range: .at() says so
}

Status ProductTunnels::check_templates(const ProductSpec& spec, const Plan& plan) {
  if (!plan.chained()) return ProductServices::check_templates(spec, plan);
  for (size_t i = 0; i < plan.hops.size(); ++i) {
    if (!hop_out_of_reach(spec, plan.hops[i]).empty()) continue;
    ProductSpec hop_spec = spec;
    hop_spec.interface = hop_interface(spec.interface, plan.hops[i].index);
    // With its services' values, as at a run (each hop has services of its own).
    if (auto s = ProductServices::check_templates(hop_spec, plan.hop_plan(i)); !s) return s;
  }
  return ok_status();
}

std::vector<ProductTunnels::Point> ProductTunnels::points(const std::string& from, const std::string& to) const {
  if (hop_plans_.empty()) return {Point{from, 0, from, from, true}, Point{to, 0, to, to, true}};
  std::vector<Point> out;
  std::string near = from;  // each hop's end toward `from`: the previous hop's far end
  for (const PlanHop* hop : plan_->hops_between(from, to)) {
    const size_t session = session_of(hop);
    const std::string far = hop->a == near ? hop->b : hop->a;
    const std::string tag = " (hop " + std::to_string(hop->index) + ")";
    out.push_back(Point{near + tag, session, near, from, near == from});
    for (const auto& r : hop->relays) out.push_back(Point{r + " (relay)", session, r, from, false, true});
    out.push_back(Point{far + tag, session, far, to, far == to});
    near = far;
  }
  return out;
}

Result<TunnelCounters> ProductTunnels::read_counters(const Point& p) {
  return sessions_.at(p.session)->read_counters(p.node);
}

bool ProductTunnels::tunnel() const { return sessions_.front()->tunnel(); }

std::vector<std::string> ProductTunnels::interfaces(const std::string& node) const {
  if (!tunnel()) return {};
  if (hop_plans_.empty()) return {spec_->interface};
  std::vector<std::string> out;
  for (size_t i = 0; i < hop_plans_.size(); ++i)
    if (hop_plans_[i]->node(node)) out.push_back(hop_specs_[i]->interface);
  return out;
}

std::map<std::string, ProductSession::DaemonUsage> ProductTunnels::daemon_usage() const {
  std::map<std::string, ProductSession::DaemonUsage> out;
  for (const auto& s : sessions_)
    for (const auto& [node, u] : s->daemon_usage()) {
      out[node].rss_kb += u.rss_kb;
      out[node].threads += u.threads;
    }
  return out;
}

std::vector<std::pair<std::string, NodeProcess*>> ProductTunnels::daemon_processes() const {
  std::vector<std::pair<std::string, NodeProcess*>> out;
  for (const auto& s : sessions_)
    for (const auto& p : s->daemon_processes()) out.push_back(p);
  return out;
}

std::vector<std::pair<std::string, pid_t>> ProductTunnels::daemon_pids() const {
  std::vector<std::pair<std::string, pid_t>> out;
  for (const auto& s : sessions_)
    for (const auto& p : s->daemon_pids()) out.push_back(p);
  return out;
}

Status ProductTunnels::repin_daemons() {
  for (const auto& s : sessions_)
    if (auto r = s->repin_daemons(); !r) return r;
  return ok_status();
}

int ProductTunnels::underlay_port(const std::string& from, const std::string& to) const {
  if (hop_plans_.empty()) return sessions_.front()->underlay_port();
  auto hops = plan_->hops_between(from, to);
  if (hops.empty()) return sessions_.front()->underlay_port();
  return sessions_.at(session_of(hops.front()))->underlay_port(!hops.front()->relays.empty());
}

Status ProductTunnels::check_daemons() {
  for (const auto& s : sessions_)
    if (auto r = s->check_daemons(); !r) return r;
  return ok_status();
}

std::vector<int> ProductTunnels::daemon_pidfds() const {
  std::vector<int> out;
  for (const auto& s : sessions_)
    for (int fd : s->daemon_pidfds()) out.push_back(fd);
  return out;
}

std::string ProductTunnels::check_path(const std::string& from, const std::string& to) {
  if (hop_plans_.empty()) return sessions_.front()->check_path(from, to);
  // Hop by hop, each in its own session: a native relay's ends must say they are relayed.
  std::string near = from;
  for (const PlanHop* hop : plan_->hops_between(from, to)) {
    const std::string far = hop->a == near ? hop->b : hop->a;
    const size_t session = session_of(hop);
    if (auto e = sessions_.at(session)->check_path(near, far, !hop->relays.empty()); !e.empty())
      return e + (plan_->hops.size() > 1 ? " (" + hop->chain + " hop " + std::to_string(hop->index) + ")" : "");
    near = far;
  }
  return "";
}

void ProductTunnels::stop() {
  for (auto it = sessions_.rbegin(); it != sessions_.rend(); ++it) (*it)->stop();
  if (services_) services_->stop();
}

}  // namespace vpnlab
