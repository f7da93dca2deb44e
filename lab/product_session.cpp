#include "lab/product_session.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "lab/template.h"
#include "netns/probes.h"

namespace vpnlab {

namespace {

Status make_dirs(const std::string& path, mode_t mode) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part + "/";
    if (mkdir(cur.c_str(), mode) < 0 && errno != EEXIST) return make_error("cannot create " + cur + ": " + errno_text(errno));
  }
  return ok_status();
}

Status write_file(const std::string& path, const std::string& content, mode_t mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return make_error("cannot write " + path + ": " + errno_text(errno));
  fchmod(fd, mode);
  bool ok = write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  close(fd);
  if (!ok) return make_error("cannot write " + path + ": " + errno_text(errno));
  return ok_status();
}

std::string peer_underlay(const PlanNode& self, const PlanNode& peer) {
  for (const auto& mine : self.underlay)
    for (const auto& theirs : peer.underlay)
      if (mine.link == theirs.link) return theirs.addr.addr.str();
  return peer.underlay.empty() ? "" : peer.underlay.front().addr.addr.str();
}

std::string file_name_of(const std::string& argv0) {
  auto slash = argv0.rfind('/');
  return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

}  // namespace

std::map<std::string, std::string> ProductSession::vars_for(const PlanNode& node) const {
  const Plan& plan = *ctx_.plan;
  const ProductSpec& spec = *ctx_.spec;
  std::map<std::string, std::string> v = {
      {"node", node.name},
      {"interface", spec.interface},
      {"overlay_address", node.overlay.addr.str()},
      {"overlay_prefix", std::to_string(node.overlay.prefix_len)},
      {"overlay_cidr", node.overlay.str()},
      {"overlay_subnet", plan.overlay_subnet.str()},
      {"mtu", std::to_string(plan.overlay_mtu)},
      {"port", std::to_string(plan.overlay_port)},
      {"underlay_address", node.underlay.empty() ? "" : node.underlay.front().addr.addr.str()},
      {"dir", ctx_.run_dir + "/nodes/" + spec.name + "/" + node.name},
      {"secrets", ctx_.run_dir + "/secrets/" + spec.name + "/" + node.name},
  };
  if (ctx_.keys && ctx_.keys->count(node.name)) {
    v["private_key"] = ctx_.keys->at(node.name).secret_base64();
    v["public_key"] = ctx_.keys->at(node.name).public_base64();
  }
  return v;
}

std::string ProductSession::expand(const std::string& text, const PlanNode& node) const {
  TemplateContext tc;
  tc.vars = vars_for(node);
  auto out = render_template(text, tc, ctx_.spec->dir + "/product.toml");
  return out ? out.value() : text;  // product specs are checked by render_files first
}

Status ProductSession::render_files(const PlanNode& node) {
  const ProductSpec& spec = *ctx_.spec;
  TemplateContext tc;
  tc.vars = vars_for(node);
  auto& peers = tc.lists["peers"];
  for (const PlanNode& other : ctx_.plan->nodes) {
    if (other.name == node.name) continue;
    TemplateVars p = {{"peer_name", other.name},
                      {"peer_overlay_address", other.overlay.addr.str()},
                      {"peer_underlay_address", peer_underlay(node, other)}};
    if (ctx_.keys && ctx_.keys->count(other.name)) p["peer_public_key"] = ctx_.keys->at(other.name).public_base64();
    peers.push_back(std::move(p));
  }
  if (auto s = make_dirs(tc.vars["dir"], 0750); !s) return s;
  if (auto s = make_dirs(tc.vars["secrets"], 0700); !s) return s;
  for (const ProductFile& f : spec.files) {
    auto text = render_template(f.template_text, tc, f.template_path);
    if (!text) return text.error();
    std::string path = (f.secret ? tc.vars["secrets"] : tc.vars["dir"]) + "/" + f.name;
    if (auto s = write_file(path, text.value(), f.secret ? 0600 : 0640); !s) return s;
  }
  // Argv and interface templates are checked here too, so a bad spec fails before any start.
  for (const ProductStep& step : spec.steps) {
    std::vector<std::string> texts = step.argv;
    texts.push_back(step.ifname);
    for (const auto& [k, v] : step.env) texts.push_back(v);
    for (const auto& t : texts)
      if (auto r = render_template(t, tc, spec.dir + "/product.toml"); !r) return r.error();
  }
  return ok_status();
}

Status ProductSession::run_steps(const PlanNode& node) {
  const ProductSpec& spec = *ctx_.spec;
  Netns& ns = ctx_.topo->ns_of_node(node.name);
  auto mnt = ctx_.topo->mount_ns_of_node(node.name);
  if (!mnt) return mnt.error();
  std::string log_dir = ctx_.run_dir + "/logs/" + spec.name;
  if (auto s = make_dirs(log_dir, 0750); !s) return s;
  for (const ProductStep& step : spec.steps) {
    if (step.kind == ProductStep::Kind::WaitLink) {
      if (auto s = wait_for_link(ns.fd.get(), ns.sock.get(), expand(step.ifname, node), step.timeout_s, ctx_.interrupt_fd); !s)
        return with_context(s.error(), "node '" + node.name + "'");
      continue;
    }
    if (step.kind == ProductStep::Kind::Configure) {
      std::string ifname = expand(step.ifname, node);
      if (auto s = add_address(ns.sock.get(), ifname, node.overlay); !s) return with_context(s.error(), "node '" + node.name + "'");
      if (auto s = set_link(ns.sock.get(), ifname, ctx_.plan->overlay_mtu, true); !s)
        return with_context(s.error(), "node '" + node.name + "'");
      continue;
    }
    SpawnSpec sp;
    for (const auto& a : step.argv) sp.argv.push_back(expand(a, node));
    for (const auto& [k, v] : step.env) sp.env[k] = expand(v, node);
    sp.netns_fd = ns.fd.get();
    sp.mntns_fd = mnt.value();
    sp.cpus = node.cpus;
    sp.cwd = vars_for(node)["dir"];
    sp.stdout_path = log_dir + "/" + node.name + "-" + std::to_string(++log_seq_) + "-" + file_name_of(sp.argv[0]) + ".log";
    if (step.kind == ProductStep::Kind::Daemon) {
      auto child = Child::spawn(sp);
      if (!child) return with_context(child.error(), "node '" + node.name + "'");
      daemons_.push_back(Daemon{node.name, sp.stdout_path, std::move(child.value())});
      continue;
    }
    auto out = run_command(sp, step.timeout_s, ctx_.interrupt_fd);
    if (!out) return with_context(out.error(), "node '" + node.name + "'");
    if (out->interrupted) return make_error("interrupted");
    if (out->timed_out || out->exit_status != 0)
      return make_error("node '" + node.name + "': '" + sp.argv[0] + "' " +
                            (out->timed_out ? "did not finish in time" : "exited with status " + std::to_string(out->exit_status)) +
                            "\n" + log_tail(sp.stdout_path),
                        "see " + sp.stdout_path);
  }
  return ok_status();
}

Status ProductSession::check_daemons() {
  for (auto& d : daemons_)
    if (!d.child->running())
      return make_error("node '" + d.node + "': '" + d.child->name() + "' exited with status " + std::to_string(d.child->exit_status()) +
                            "\n" + log_tail(d.log),
                        "see " + d.log);
  return ok_status();
}

Status ProductSession::wait_ready() {
  const Plan& plan = *ctx_.plan;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(ctx_.spec->ready_timeout_s);
  for (const PlanNode& node : plan.nodes) {
    Netns& ns = ctx_.topo->ns_of_node(node.name);
    for (const PlanNode& peer : plan.nodes) {
      if (peer.name == node.name) continue;
      double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      auto s = ping_until_answered(ns.fd.get(), peer.overlay.addr, std::max(left, 0.2), ctx_.interrupt_fd);
      if (!s) {
        if (auto d = check_daemons(); !d) return d;
        std::string tails;
        for (auto& d : daemons_) tails += "  " + d.log + ":\n" + log_tail(d.log, 5);
        return make_error("not ready: from node '" + node.name + "' to '" + peer.name + "': " + s.error().message + "\n" + tails,
                          s.error().hint);
      }
    }
  }
  return ok_status();
}

Result<std::unique_ptr<ProductSession>> ProductSession::start(const Context& ctx) {
  std::unique_ptr<ProductSession> session(new ProductSession(ctx));
  if (!ctx.spec->tunnel) return session;
  for (const PlanNode& node : ctx.plan->nodes)
    if (auto s = session->render_files(node); !s) return s.error();
  auto t0 = std::chrono::steady_clock::now();
  for (const PlanNode& node : ctx.plan->nodes)
    if (auto s = session->run_steps(node); !s) {
      session->stop();
      return s.error();
    }
  if (auto s = session->wait_ready(); !s) {
    session->stop();
    return s.error();
  }
  session->bringup_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return session;
}

ProductSession::~ProductSession() { stop(); }

Ipv4Addr ProductSession::target_address(const PlanTest& test) const {
  const PlanNode* server = ctx_.plan->node(test.spec.servers[0]);
  if (!ctx_.spec->tunnel) return ctx_.plan->underlay_address(server->name, test.underlay_link);
  return server->overlay.addr;
}

bool ProductSession::parse_counter_output(const std::string& text, int rx_field, int tx_field, uint64_t* rx, uint64_t* tx) {
  std::istringstream lines(text);
  std::string line;
  bool any = false;
  *rx = *tx = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    if (f.empty()) continue;
    if (static_cast<int>(f.size()) < std::max(rx_field, tx_field)) return false;
    try {
      *rx += std::stoull(f[static_cast<size_t>(rx_field - 1)]);
      *tx += std::stoull(f[static_cast<size_t>(tx_field - 1)]);
    } catch (...) {
      return false;
    }
    any = true;
  }
  return any;
}

Result<TunnelCounters> ProductSession::read_counters(const std::string& node_name) {
  TunnelCounters c;
  const ProductSpec& spec = *ctx_.spec;
  if (!spec.tunnel) return c;
  const PlanNode& node = *ctx_.plan->node(node_name);
  Netns& ns = ctx_.topo->ns_of_node(node_name);
  auto link = get_link(ns.sock.get(), spec.interface);
  if (!link) return with_context(link.error(), "node '" + node_name + "'");
  c.if_rx = link->rx_bytes;
  c.if_tx = link->tx_bytes;
  if (!spec.counters) return c;
  auto mnt = ctx_.topo->mount_ns_of_node(node_name);
  if (!mnt) return mnt.error();
  SpawnSpec sp;
  for (const auto& a : spec.counters->argv) sp.argv.push_back(expand(a, node));
  sp.netns_fd = ns.fd.get();
  sp.mntns_fd = mnt.value();
  sp.stdout_path = ctx_.run_dir + "/logs/" + spec.name + "/" + node_name + "-counters.out";
  sp.stderr_path = ctx_.run_dir + "/logs/" + spec.name + "/" + node_name + "-counters.err";
  auto out = run_command(sp, 5, ctx_.interrupt_fd);
  if (!out) return out.error();
  if (out->exit_status != 0) return make_error("node '" + node_name + "': counter command failed\n" + log_tail(sp.stderr_path));
  std::ifstream in(sp.stdout_path);
  std::stringstream buf;
  buf << in.rdbuf();
  if (!parse_counter_output(buf.str(), spec.counters->rx_field, spec.counters->tx_field, &c.product_rx, &c.product_tx))
    return make_error("node '" + node_name + "': cannot read the product's counters from '" + buf.str() + "'");
  c.has_product = true;
  return c;
}

void ProductSession::stop() {
  for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) it->child->stop(2000);
  daemons_.clear();
}

}  // namespace vpnlab
