#include "lab/product_session.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "netns/capabilities.h"
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

// Node names may hold '-', which some products refuse in their own names (tinc).
std::string ident_of(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

std::string file_name_of(const std::string& argv0) {
  auto slash = argv0.rfind('/');
  return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

}  // namespace

std::string ProductSession::node_dir(const std::string& node) const {
  return ctx_.run_dir + "/nodes/" + ctx_.spec->name + "/" + node;
}

std::string ProductSession::secrets_dir(const std::string& node) const {
  return ctx_.run_dir + "/secrets/" + ctx_.spec->name + "/" + node;
}

std::map<std::string, std::string> ProductSession::peer_values(const PlanNode& node, const PlanNode& peer) const {
  std::map<std::string, std::string> p = {{"peer_name", peer.name},
                                          {"peer_node_ident", ident_of(peer.name)},
                                          {"peer_overlay_address", peer.overlay.addr.str()},
                                          {"peer_underlay_address", peer_underlay(node, peer)},
                                          {"peer_dir", node_dir(peer.name)},
                                          {"peer_secrets", secrets_dir(peer.name)}};
  if (ctx_.keys && ctx_.keys->count(peer.name)) {
    p["peer_public_key"] = ctx_.keys->at(peer.name).public_base64();
    p["peer_public_key_hex"] = to_hex(ctx_.keys->at(peer.name).public_key.data(), 32);
  }
  auto it = node_captured_.find(peer.name);
  if (it != node_captured_.end())
    for (const auto& [k, v] : it->second) p["peer_" + k] = v;
  return p;
}

TemplateContext ProductSession::context_for(const PlanNode* node, const PlanNode* peer) const {
  const Plan& plan = *ctx_.plan;
  const ProductSpec& spec = *ctx_.spec;
  TemplateContext tc;
  tc.vars = {
      {"interface", spec.interface},
      {"overlay_subnet", plan.overlay_subnet.str()},
      {"overlay_prefix", std::to_string(plan.overlay_subnet.length)},
      {"mtu", std::to_string(plan.overlay_mtu)},
      {"port", std::to_string(plan.overlay_port)},
      {"run_secrets", ctx_.run_dir + "/secrets/" + spec.name},
      {"overlay_netmask", Ipv4Addr{plan.overlay_subnet.length == 0 ? 0u : ~uint32_t{0} << (32 - plan.overlay_subnet.length)}.str()},
      {"first_overlay_address", plan.nodes.front().overlay.addr.str()},
  };
  for (const auto& [k, v] : ctx_.run_values) tc.vars[k] = v;
  for (const auto& [k, v] : run_captured_) tc.vars[k] = v;
  if (!node) return tc;
  size_t index = static_cast<size_t>(node - plan.nodes.data());
  tc.vars["node"] = node->name;
  tc.vars["node_ident"] = ident_of(node->name);
  tc.vars["node_index"] = std::to_string(index);
  tc.vars["overlay_address"] = node->overlay.addr.str();
  tc.vars["overlay_cidr"] = node->overlay.str();
  tc.vars["underlay_address"] = node->underlay.empty() ? "" : node->underlay.front().addr.addr.str();
  tc.vars["dir"] = node_dir(node->name);
  tc.vars["secrets"] = secrets_dir(node->name);
  if (ctx_.keys && ctx_.keys->count(node->name)) {
    const X25519KeyPair& kp = ctx_.keys->at(node->name);
    tc.vars["private_key"] = kp.secret_base64();
    tc.vars["public_key"] = kp.public_base64();
    tc.vars["private_key_hex"] = to_hex(kp.secret.data(), 32);
    tc.vars["public_key_hex"] = to_hex(kp.public_key.data(), 32);
  }
  auto it = node_captured_.find(node->name);
  if (it != node_captured_.end())
    for (const auto& [k, v] : it->second) tc.vars[k] = v;
  // In a two-node (p2p) overlay "the peer" is unambiguous: its values are there as peer_*.
  if (!peer && plan.nodes.size() == 2) peer = &plan.nodes[index == 0 ? 1 : 0];
  if (peer)
    for (const auto& [k, v] : peer_values(*node, *peer)) tc.vars[k] = v;
  auto& peers = tc.lists["peers"];
  for (const PlanNode& other : plan.nodes)
    if (other.name != node->name) peers.push_back(peer_values(*node, other));
  // One-item or empty lists: {{#first}}...{{/first}} renders only on the first node.
  tc.lists["first"] = index == 0 ? std::vector<TemplateVars>{TemplateVars{}} : std::vector<TemplateVars>{};
  tc.lists["others"] = index != 0 ? std::vector<TemplateVars>{TemplateVars{}} : std::vector<TemplateVars>{};
  return tc;
}

Result<std::string> ProductSession::expand(const std::string& text, const TemplateContext& ctx) const {
  return render_template(text, ctx, ctx_.spec->dir + "/product.toml");
}

namespace {
bool applies(NodeFilter f, size_t index) {
  return f == NodeFilter::All || (f == NodeFilter::First) == (index == 0);
}

// Lines of `text` that start with a prefix give the value after it ("" = all, trimmed).
std::string captured_value(const std::string& text, const std::string& prefix) {
  auto trim = [](std::string v) {
    v.erase(0, v.find_first_not_of(" \t\r\n"));
    v.erase(v.find_last_not_of(" \t\r\n") + 1);
    return v;
  };
  if (prefix.empty()) return trim(text);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) return trim(line.substr(prefix.size()));
  return {};
}
}  // namespace

Status ProductSession::prepare_one(const PrepareStep& step, size_t index, const PlanNode* node, const PlanNode* peer) {
  const ProductSpec& spec = *ctx_.spec;
  TemplateContext tc = context_for(node, peer);
  std::string where = node ? "node '" + node->name + "'" + (peer ? " (peer '" + peer->name + "')" : "") : "run";
  if (!step.file.empty()) {
    auto rel = expand(step.file, tc);
    if (!rel) return rel.error();
    auto text = render_template(step.template_text, tc, step.template_path);
    if (!text) return text.error();
    std::string path = (step.secret ? tc.vars["secrets"] : tc.vars["dir"]) + "/" + rel.value();
    if (auto s = make_dirs(path.substr(0, path.rfind('/')), step.secret ? 0700 : 0750); !s) return s;
    return write_file(path, text.value(), step.executable ? (step.secret ? 0700 : 0750) : (step.secret ? 0600 : 0640));
  }
  SpawnSpec sp;
  for (const auto& a : step.argv) {
    auto v = expand(a, tc);
    if (!v) return v.error();
    sp.argv.push_back(v.value());
  }
  std::string log_dir = ctx_.run_dir + "/logs/" + spec.name;
  std::string base = log_dir + "/prepare-" + std::to_string(index) + "-" + (node ? node->name : "run") + (peer ? "-" + peer->name : "");
  sp.stdout_path = base + ".out";
  sp.stderr_path = base + ".err";
  sp.cwd = node ? tc.vars["dir"] : ctx_.run_dir;
  auto out = run_command(sp, 60, ctx_.interrupt_fd);
  if (!out) return with_context(out.error(), where);
  if (out->interrupted) return make_error("interrupted");
  if (out->timed_out || out->exit_status != 0)
    return make_error(where + ": preparing with '" + sp.argv[0] + "' failed (" +
                          (out->timed_out ? "timed out" : "status " + std::to_string(out->exit_status)) + ")\n" + log_tail(sp.stderr_path),
                      "see " + sp.stderr_path);
  if (step.capture.empty()) return ok_status();
  std::ifstream in(sp.stdout_path);
  std::stringstream buf;
  buf << in.rdbuf();
  for (const auto& [name, prefix] : step.capture) {
    std::string value = captured_value(buf.str(), prefix);
    if (value.empty())
      return make_error(where + ": '" + sp.argv[0] + "' printed no line starting with '" + prefix + "' (for " + name + ")",
                        "see " + sp.stdout_path);
    (node ? node_captured_[node->name][name] : run_captured_[name]) = value;
  }
  return ok_status();
}

Status ProductSession::prepare() {
  const Plan& plan = *ctx_.plan;
  for (const PlanNode& node : plan.nodes) {
    if (auto s = make_dirs(node_dir(node.name), 0750); !s) return s;
    if (auto s = make_dirs(secrets_dir(node.name), 0700); !s) return s;
  }
  if (auto s = make_dirs(ctx_.run_dir + "/logs/" + ctx_.spec->name, 0750); !s) return s;
  if (auto s = make_dirs(ctx_.run_dir + "/secrets/" + ctx_.spec->name, 0700); !s) return s;
  // Entry by entry, each for every node, so later entries see what earlier ones made.
  size_t index = 0;
  for (const PrepareStep& step : ctx_.spec->prepare) {
    ++index;
    if (step.scope == PrepareStep::Scope::Run) {
      if (auto s = prepare_one(step, index, nullptr, nullptr); !s) return s;
      continue;
    }
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
      if (!applies(step.nodes, i)) continue;
      if (step.scope == PrepareStep::Scope::Node) {
        if (auto s = prepare_one(step, index, &plan.nodes[i], nullptr); !s) return s;
        continue;
      }
      for (const PlanNode& peer : plan.nodes)
        if (peer.name != plan.nodes[i].name)
          if (auto s = prepare_one(step, index, &plan.nodes[i], &peer); !s) return s;
    }
  }
  // Step templates are checked here too, so a bad spec fails before anything starts.
  for (const PlanNode& node : plan.nodes) {
    TemplateContext tc = context_for(&node);
    for (const ProductStep& step : ctx_.spec->steps) {
      std::vector<std::string> texts = step.argv;
      texts.push_back(step.ifname);
      for (const auto& [k, v] : step.env) texts.push_back(v);
      for (const auto& t : texts)
        if (auto r = expand(t, tc); !r) return r.error();
    }
  }
  return ok_status();
}

Status ProductSession::run_steps(const PlanNode& node, size_t index) {
  const ProductSpec& spec = *ctx_.spec;
  Netns& ns = ctx_.topo->ns_of_node(node.name);
  auto mnt = ctx_.topo->mount_ns_of_node(node.name);
  if (!mnt) return mnt.error();
  std::string log_dir = ctx_.run_dir + "/logs/" + spec.name;
  TemplateContext tc = context_for(&node);
  auto ex = [&](const std::string& t) { return expand(t, tc).value(); };  // checked in prepare()
  for (const ProductStep& step : spec.steps) {
    if (!applies(step.nodes, index)) continue;
    if (step.kind == ProductStep::Kind::WaitLink) {
      if (auto s = wait_for_link(ns.fd.get(), ns.sock.get(), ex(step.ifname), step.timeout_s, ctx_.interrupt_fd); !s)
        return with_context(s.error(), "node '" + node.name + "'");
      continue;
    }
    if (step.kind == ProductStep::Kind::CreateLink) {
      if (auto s = create_link_of_kind(ns.sock.get(), ex(step.ifname), step.link_kind); !s)
        return with_context(s.error(), "node '" + node.name + "'");
      continue;
    }
    if (step.kind == ProductStep::Kind::Configure) {
      std::string ifname = ex(step.ifname);
      if (auto s = add_address(ns.sock.get(), ifname, node.overlay); !s) return with_context(s.error(), "node '" + node.name + "'");
      if (auto s = set_link(ns.sock.get(), ifname, ctx_.plan->overlay_mtu, true); !s)
        return with_context(s.error(), "node '" + node.name + "'");
      continue;
    }
    SpawnSpec sp;
    for (const auto& a : step.argv) sp.argv.push_back(ex(a));
    for (const auto& [k, v] : step.env) sp.env[k] = ex(v);
    sp.netns_fd = ns.fd.get();
    sp.mntns_fd = mnt.value();
    sp.cpus = node.cpus;
    sp.cwd = node_dir(node.name);
    sp.stdout_path = log_dir + "/" + node.name + "-" + std::to_string(++log_seq_) + "-" + file_name_of(sp.argv[0]) + ".log";
    if (step.kind == ProductStep::Kind::Daemon) {
      auto child = Child::spawn(sp);
      if (!child) return with_context(child.error(), "node '" + node.name + "'");
      daemons_.push_back(Daemon{node.name, sp.stdout_path, std::move(child.value())});
      continue;
    }
    // With `retry`, a failing command is run again until it succeeds or the time is up:
    // a bounded probe for daemons whose control socket has no readiness event.
    auto retry_end = std::chrono::steady_clock::now() + std::chrono::duration<double>(step.retry_s);
    auto out = run_command(sp, step.timeout_s, ctx_.interrupt_fd);
    while (out && !out->interrupted && out->exit_status != 0 && std::chrono::steady_clock::now() < retry_end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      out = run_command(sp, step.timeout_s, ctx_.interrupt_fd);
    }
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

Status ProductSession::check_mtu() {
  // Every product carries the same overlay MTU: the interface says so, and a full-size
  // packet with DF set crosses the tunnel whole (a larger one would black-hole).
  const Plan& plan = *ctx_.plan;
  for (const PlanNode& node : plan.nodes) {
    Netns& ns = ctx_.topo->ns_of_node(node.name);
    auto link = get_link(ns.sock.get(), ctx_.spec->interface);
    if (!link) return with_context(link.error(), "node '" + node.name + "'");
    // A kernel product must really be the kernel's: a userspace stand-in would show a TUN.
    if (!ctx_.spec->interface_kind.empty() && link->kind != ctx_.spec->interface_kind)
      return make_error("node '" + node.name + "': " + ctx_.spec->interface + " is of kind '" + (link->kind.empty() ? "unknown" : link->kind) +
                            "', not '" + ctx_.spec->interface_kind + "'",
                        "something other than " + ctx_.spec->name + " answered; results would be mislabelled");
    if (link->mtu != plan.overlay_mtu)
      return make_error("node '" + node.name + "': " + ctx_.spec->interface + " has MTU " + std::to_string(link->mtu) + ", not the overlay's " +
                            std::to_string(plan.overlay_mtu),
                        "the product must take the MTU from its config ({{mtu}}) or a configure step");
    const PlanNode& peer = plan.nodes[&node == &plan.nodes[0] ? 1 : 0];
    if (auto s = ping_until_answered(ns.fd.get(), peer.overlay.addr, 3, ctx_.interrupt_fd, nullptr, plan.overlay_mtu - 28, true); !s)
      return make_error("node '" + node.name + "': a full-size packet (MTU " + std::to_string(plan.overlay_mtu) + ", DF) did not cross the tunnel: " +
                            s.error().message,
                        "the product cannot carry this MTU; lower [overlay] mtu");
  }
  return ok_status();
}

Result<std::unique_ptr<ProductSession>> ProductSession::start(const Context& ctx) {
  std::unique_ptr<ProductSession> session(new ProductSession(ctx));
  if (!ctx.spec->tunnel) return session;
  if (auto s = session->prepare(); !s) return s.error();
  auto t0 = std::chrono::steady_clock::now();
  // The first node starts last: specs make it the side that initiates (fastd's remote,
  // strongSwan's initiate), and an initiator whose first packets hit closed ports backs off.
  for (size_t i = ctx.plan->nodes.size(); i-- > 0;)
    if (auto s = session->run_steps(ctx.plan->nodes[i], i); !s) {
      session->stop();
      return s.error();
    }
  if (auto s = session->wait_ready(); !s) {
    session->stop();
    return s.error();
  }
  session->bringup_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (auto s = session->check_mtu(); !s) {
    session->stop();
    return s.error();
  }
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

int ProductSession::underlay_port() const {
  if (!ctx_.spec->tunnel) return 0;
  auto port = expand(ctx_.spec->underlay_port, context_for(nullptr));
  return port ? std::atoi(port->c_str()) : 0;
}

Result<TunnelCounters> ProductSession::read_counters(const std::string& node_name) {
  TunnelCounters c;
  const ProductSpec& spec = *ctx_.spec;
  if (!spec.tunnel) return c;
  const PlanNode& node = *ctx_.plan->node(node_name);
  Netns& ns = ctx_.topo->ns_of_node(node_name);
  for (const auto& u : node.underlay) {
    auto l = get_link(ns.sock.get(), u.ifname);
    if (!l) return with_context(l.error(), "node '" + node_name + "'");
    c.underlay_rx += l->rx_bytes;
    c.underlay_tx += l->tx_bytes;
  }
  auto link = get_link(ns.sock.get(), spec.interface);
  if (!link) return with_context(link.error(), "node '" + node_name + "'");
  c.if_rx = link->rx_bytes;
  c.if_tx = link->tx_bytes;
  if (!spec.counters) return c;
  auto mnt = ctx_.topo->mount_ns_of_node(node_name);
  if (!mnt) return mnt.error();
  SpawnSpec sp;
  TemplateContext tc = context_for(&node);
  for (const auto& a : spec.counters->argv) {
    auto v = expand(a, tc);
    if (!v) return v.error();
    sp.argv.push_back(v.value());
  }
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
