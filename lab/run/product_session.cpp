#include "lab/run/product_session.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <spdlog/spdlog.h>

#include "lab/base/fault.h"
#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"

namespace vpnlab {

namespace {

std::string file_name_of(const std::string& argv0) {
  auto slash = argv0.rfind('/');
  return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

}  // namespace

// A daemon that died explains what failed after it (a link that never appeared, pings
// unanswered): its exit status and log tail are the message, not the symptom.
Error ProductSession::explain(Error symptom) {
  if (auto d = check_daemons(); !d) return d.error();
  return symptom;
}

// One executor per step kind (product_spec.h's step_kinds()): what the step does in a node.
using StepExecutor = Status (ProductSession::*)(const PlanNode&, const ProductStep&, const TemplateContext&);

Status ProductSession::wait_link_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc) {
  if (auto s = ctx_.nodes->wait_for_link(node.name, expand(step.ifname, tc).value(), step.timeout_s, ctx_.interrupt_fd);
      !s)
    return explain(with_context(s.error(), "node '" + node.name + "'"));
  return ok_status();
}

Status ProductSession::create_link_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc) {
  LinkOptions options = step.link;
  options.remote = expand(step.link.remote, tc).value();  // checked at validate and in prepare(), as every step text
  std::string ifname = expand(step.ifname, tc).value();
  if (auto s = ctx_.nodes->create_link_of_kind(node.name, ifname, step.link_kind, options); !s)
    return with_context(s.error(), "node '" + node.name + "'");
  created_links_.emplace_back(node.name, ifname);  // the session's to remove: stop()
  return ok_status();
}

Status ProductSession::configure_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc) {
  const std::string ifname = expand(step.ifname, tc).value();
  if (auto s = ctx_.nodes->configure_link(node.name, ifname, node.overlay, ctx_.plan->overlay_mtu); !s)
    return with_context(s.error(), "node '" + node.name + "'");
  // What netlink did, as the commands that do the same, in the step's order: a hand recipe
  // (lab/results/hand_recipe.h) reads them beside the commands that ran.
  note_equivalent(node.name, {"ip", "addr", "add", node.overlay.str(), "dev", ifname});
  note_equivalent(node.name, {"ip", "link", "set", ifname, "mtu", std::to_string(ctx_.plan->overlay_mtu), "up"});
  return ok_status();
}

void ProductSession::note_equivalent(const std::string& node, const std::vector<std::string>& argv) {
  std::string text = "exe: (none: vpnlab did this through netlink; the command does the same)\nargv:\n";
  for (const auto& a : argv) text += "  " + a + "\n";
  text += "env (added to PATH, LANG=C.UTF-8, HOME=/root):\ncpus: not pinned\nnetwork namespace: the node's\n";
  (void)write_file(log_dir() + "/" + node + "-" + std::to_string(++log_seq_) + "-netlink.log.cmd", text, 0640);
}

Status ProductSession::wait_listen_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc) {
  const std::string port = expand(step.ifname, tc).value();
  int p = std::atoi(port.c_str());
  if (p <= 0 || p > 65535) return make_error("node '" + node.name + "': wait_listen: '" + port + "' is not a TCP port");
  if (auto s = ctx_.nodes->wait_tcp_listening(node.name, p, step.timeout_s, ctx_.interrupt_fd); !s)
    return explain(with_context(s.error(), "node '" + node.name + "'"));
  return ok_status();
}

Status ProductSession::sysctl_step(const PlanNode& node, const ProductStep& step, const TemplateContext&) {
  if (auto s = ctx_.nodes->set_sysctls(node.name, step.sysctls); !s)
    return with_context(s.error(), "node '" + node.name + "'");
  return ok_status();
}

SpawnSpec ProductSession::step_process(const PlanNode& node, const ProductStep& step, const TemplateContext& tc) {
  SpawnSpec sp;
  for (const auto& a : step.argv)
    sp.argv.push_back(expand(a, tc).value());  // every value checked at validate and in prepare()
  for (const auto& [k, v] : step.env) sp.env[k] = expand(v, tc).value();
  sp.cpus = node.cpus;
  sp.cwd = node_dir(node.name);
  sp.stdout_path =
      log_dir() + "/" + node.name + "-" + std::to_string(++log_seq_) + "-" + file_name_of(sp.argv[0]) + ".log";
  return sp;
}

Status ProductSession::daemon_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc) {
  SpawnSpec sp = step_process(node, step, tc);
  sp.daemon = true;
  auto child = ctx_.nodes->spawn(node.name, sp, true);
  if (!child) return with_context(child.error(), "node '" + node.name + "'");
  daemons_.push_back(Daemon{node.name, sp.stdout_path, std::move(child.value())});
  return ok_status();
}

Status ProductSession::run_step(const PlanNode& node, const ProductStep& step, const TemplateContext& tc) {
  SpawnSpec sp = step_process(node, step, tc);
  // What is captured is what the command printed on stdout alone (its log lines go apart).
  if (!step.capture.empty()) sp.stderr_path = sp.stdout_path + ".err";
  NodeRuntime& nodes = *ctx_.nodes;
  // With `retry`, a failing command is run again until it succeeds or the time is up:
  // a bounded probe for daemons whose control socket has no readiness event.
  auto retry_end = std::chrono::steady_clock::now() + std::chrono::duration<double>(step.retry_s);
  auto out = nodes.run(node.name, sp, true, step.timeout_s, ctx_.interrupt_fd);
  while (out && !out->interrupted && out->exit_status != 0 && std::chrono::steady_clock::now() < retry_end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    out = nodes.run(node.name, sp, true, step.timeout_s, ctx_.interrupt_fd);
  }
  if (!out) return with_context(out.error(), "node '" + node.name + "'");
  if (out->interrupted) return make_error("interrupted");
  if (out->timed_out || out->exit_status != 0)
    return explain(make_error(
        "node '" + node.name + "': '" + sp.argv[0] + "' " +
            (out->timed_out ? "did not finish in time" : "exited with status " + std::to_string(out->exit_status)) +
            "\n" + log_tail(sp.stderr_path.empty() ? sp.stdout_path : sp.stderr_path),
        "see " + sp.stdout_path));
  if (step.capture.empty()) return ok_status();
  return capture_values(sp.stdout_path, step.capture, "node '" + node.name + "'", sp.argv[0],
                        &node_captured_[node.name]);
}

Status ProductSession::run_steps(const PlanNode& node, size_t index) {
  static const std::map<ProductStep::Kind, StepExecutor> executors = {
      {ProductStep::Kind::Daemon, &ProductSession::daemon_step},
      {ProductStep::Kind::Run, &ProductSession::run_step},
      {ProductStep::Kind::WaitLink, &ProductSession::wait_link_step},
      {ProductStep::Kind::Configure, &ProductSession::configure_step},
      {ProductStep::Kind::CreateLink, &ProductSession::create_link_step},
      {ProductStep::Kind::Sysctl, &ProductSession::sysctl_step},
      {ProductStep::Kind::WaitListen, &ProductSession::wait_listen_step},
  };
  for (const ProductStep& step : ctx_.spec->steps) {
    if (!node_filter_applies(step.nodes, index, node.relay)) continue;
    TemplateContext tc = context_for(&node);  // anew: an earlier step may have captured a value
    if (auto s = (this->*executors.at(step.kind))(node, step, tc); !s) return s;
  }
  return ok_status();
}

Status ProductSession::check_daemons() {
  for (auto& d : daemons_)
    if (!d.child->running())
      return make_error("node '" + d.node + "': '" + d.child->name() + "' exited with status " +
                            std::to_string(d.child->exit_status()) + "\n" + log_tail(d.log),
                        "see " + d.log);
  return ok_status();
}

std::vector<int> ProductSession::daemon_pidfds() const {
  std::vector<int> fds;
  for (const auto& d : daemons_) fds.push_back(d.child->exit_fd());
  return fds;
}

Status ProductSession::wait_ready() {
  fault_point("readiness");
  const Plan& plan = *ctx_.plan;
  if (ctx_.mesh_timeout_s > 0) {
    auto sweep = ctx_.nodes->sweep_mesh(plan, ctx_.mesh_timeout_s, ctx_.interrupt_fd);
    if (!sweep) return sweep.error();
    sweep_ = *sweep;
    if (sweep_.answered == sweep_.pairs) return ok_status();
    if (auto d = check_daemons(); !d) return d;
    return make_error("not converged: " + std::to_string(sweep_.answered) + " of " + std::to_string(sweep_.pairs) +
                          " node pairs answered within " + std::to_string(static_cast<int>(ctx_.mesh_timeout_s)) +
                          " s (" + sweep_.first_missing + " did not)",
                      "see the product's logs; a larger mesh may need a longer converge_timeout");
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(ctx_.spec->ready_timeout_s);
  for (const PlanNode& node : plan.nodes) {
    for (const PlanNode& peer : plan.nodes) {
      if (peer.name == node.name) continue;
      double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      auto s = ctx_.nodes->ping(node.name, peer.overlay.addr, std::max(left, 0.2), ctx_.interrupt_fd);
      if (!s) {
        if (auto d = check_daemons(); !d) return d;
        std::string tails;
        for (auto& d : daemons_) tails += "  " + d.log + ":\n" + log_tail(d.log, 5);
        return make_error(
            "not ready: from node '" + node.name + "' to '" + peer.name + "': " + s.error().message + "\n" + tails,
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
    auto link = ctx_.nodes->get_link(node.name, ctx_.spec->interface);
    if (!link) return with_context(link.error(), "node '" + node.name + "'");
    // A kernel product must really be the kernel's: a userspace stand-in would show a TUN.
    if (!ctx_.spec->interface_kind.empty() && link->kind != ctx_.spec->interface_kind)
      return make_error("node '" + node.name + "': " + ctx_.spec->interface + " is of kind '" +
                            (link->kind.empty() ? "unknown" : link->kind) + "', not '" + ctx_.spec->interface_kind +
                            "'",
                        "something other than " + ctx_.spec->name + " answered; results would be mislabelled");
    if (link->mtu != plan.overlay_mtu)
      return make_error("node '" + node.name + "': " + ctx_.spec->interface + " has MTU " + std::to_string(link->mtu) +
                            ", not the overlay's " + std::to_string(plan.overlay_mtu),
                        "the product must take the MTU from its config ({{mtu}}) or a configure step");
    const PlanNode& peer = plan.nodes[&node == &plan.nodes[0] ? 1 : 0];
    if (auto s = ctx_.nodes->ping(node.name, peer.overlay.addr, 3, ctx_.interrupt_fd, max_udp_payload(plan.overlay_mtu),
                                  true);
        !s)
      return make_error("node '" + node.name + "': a full-size packet (MTU " + std::to_string(plan.overlay_mtu) +
                            ", DF) did not cross the tunnel: " + s.error().message,
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
  // start_order = "file": by overlay address, lowest first, which is file order but on a
  // relay chain's hop, whose relay comes first and holds its middle address (a control
  // server numbers nodes as they join).
  const size_t n = ctx.plan->nodes.size();
  std::vector<size_t> order(n);
  for (size_t k = 0; k < n; ++k) order[k] = ctx.spec->start_in_file_order ? k : n - 1 - k;
  if (ctx.spec->start_in_file_order)
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return ctx.plan->nodes[x].overlay.addr.value < ctx.plan->nodes[y].overlay.addr.value;
    });
  for (size_t i : order) {
    if (auto s = session->run_steps(ctx.plan->nodes[i], i); !s) {
      session->stop();
      return s.error();
    }
  }
  if (ctx.service) return session;
  if (auto s = session->wait_ready(); !s) {
    Error e = session->explain(s.error());
    session->stop();
    return e;
  }
  session->bringup_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (auto s = session->check_mtu(); !s) {
    session->stop();
    return s.error();
  }
  return session;
}

ProductSession::~ProductSession() { stop(); }

bool ProductSession::parse_counter_output(const std::string& text, int rx_field, int tx_field, uint64_t* rx,
                                          uint64_t* tx) {
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

int ProductSession::underlay_port(bool relayed) const {
  if (!ctx_.spec->tunnel) return 0;
  const std::string& text =
      relayed && !ctx_.spec->relay_port.empty() ? ctx_.spec->relay_port : ctx_.spec->underlay_port;
  auto port = expand(text, context_for(nullptr));
  return port ? std::atoi(port->c_str()) : 0;
}

Result<TunnelCounters> ProductSession::read_counters(const std::string& node_name) {
  TunnelCounters c;
  const ProductSpec& spec = *ctx_.spec;
  const PlanNode& node = *ctx_.plan->node(node_name);
  // Only links toward other VPN nodes: a gateway's link to its site carries the same
  // bytes in clear and would hide traffic that bypassed the tunnel.
  for (const auto& u : node.underlay) {
    if (!u.carrier) continue;
    auto l = ctx_.nodes->get_link(node_name, u.ifname);
    if (!l) return with_context(l.error(), "node '" + node_name + "'");
    c.underlay_rx += l->rx_bytes;
    c.underlay_tx += l->tx_bytes;
    c.underlay_rx_packets += l->rx_packets;
    c.underlay_tx_packets += l->tx_packets;
  }
  if (!spec.tunnel) return c;
  auto link = ctx_.nodes->get_link(node_name, spec.interface);
  if (!link) return with_context(link.error(), "node '" + node_name + "'");
  c.if_rx = link->rx_bytes;
  c.if_tx = link->tx_bytes;
  c.if_rx_packets = link->rx_packets;
  c.if_tx_packets = link->tx_packets;
  if (!spec.counters) return c;
  SpawnSpec sp;
  TemplateContext tc = context_for(&node);
  for (const auto& a : spec.counters->argv) {
    auto v = expand(a, tc);
    if (!v) return v.error();
    sp.argv.push_back(v.value());
  }
  sp.stdout_path = log_dir() + "/" + node_name + "-counters.out";
  sp.stderr_path = log_dir() + "/" + node_name + "-counters.err";
  auto out = ctx_.nodes->run(node_name, sp, true, 5, ctx_.interrupt_fd);
  if (!out) return out.error();
  if (out->exit_status != 0)
    return make_error("node '" + node_name + "': counter command failed\n" + log_tail(sp.stderr_path));
  auto read = read_input_file(sp.stdout_path, kMaxToolOutputBytes);
  if (!read) return with_context(read.error(), "node '" + node_name + "': the product's counters");
  const std::string& output = *read;
  if (!parse_counter_output(output, spec.counters->rx_field, spec.counters->tx_field, &c.product_rx, &c.product_tx))
    return make_error("node '" + node_name + "': cannot read the product's counters from '" + output + "'");
  c.has_product = true;
  return c;
}

std::map<std::string, std::string> ProductSession::captured(const std::string& node) const {
  auto it = node_captured_.find(node);
  return it == node_captured_.end() ? std::map<std::string, std::string>{} : it->second;
}

namespace {

// Runs of spaces and tabs as one space: a product's table pads its columns to their widths.
std::string squeeze_blanks(const std::string& text) {
  std::string out;
  for (char ch : text) {
    const bool blank = ch == ' ' || ch == '\t';
    if (!blank || out.empty() || out.back() != ' ') out += blank ? ' ' : ch;
  }
  return out;
}

}  // namespace

std::string ProductSession::check_path(const std::string& node_name, const std::string& peer_name, bool relayed) {
  const auto& path = ctx_.spec->path;
  const PlanNode* node = ctx_.plan->node(node_name);
  const PlanNode* peer = ctx_.plan->node(peer_name);
  if (!path || !node || !peer || (relayed && path->relayed.empty())) return "";
  TemplateContext tc = context_for(node, peer);
  SpawnSpec sp;
  for (const auto& a : path->argv) sp.argv.push_back(expand(a, tc).value());  // checked at validate and in prepare()
  // `relayed` names the relay's values, which only a relay chain's ends have: checked here.
  auto expected = expand(relayed ? path->relayed : path->expect, tc);
  if (!expected) return "path not proven: " + expected.error().message;
  const std::string& expect = *expected;
  sp.stdout_path = log_dir() + "/" + node_name + "-path.out";
  auto out = ctx_.nodes->run(node_name, sp, true, 10, ctx_.interrupt_fd);
  if (!out) return "path not proven: " + out.error().message;
  auto read = read_input_file(sp.stdout_path, kMaxToolOutputBytes);
  if (!read) return "path not proven: " + read.error().message;
  const std::string& text = *read;
  if (out->exit_status == 0 && squeeze_blanks(text).find(squeeze_blanks(expect)) != std::string::npos) return "";
  // What it said about the peer: its line that names the peer's address, else its first.
  std::string said = text.substr(0, text.find('\n'));
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find(tc.vars["peer_overlay_address"]) != std::string::npos) {
      said = squeeze_blanks(line);
      break;
    }
  if (said.size() > 160) {
    size_t cut = 160;
    while (cut > 0 && (static_cast<unsigned char>(said[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    said = said.substr(0, cut) + "...";
  }
  return "path not proven: '" + sp.argv[0] + "' did not say '" + expect + "'" +
         (said.empty() ? "" : " (it said: " + said + ")");
}

void ProductSession::stop() {
  for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) it->child->stop(2000);
  daemons_.clear();
  // A kernel link the spec made outlives its daemons (a VXLAN, a WireGuard link): the
  // product leaves nothing, so the teardown audit sees what the product itself left.
  for (auto it = created_links_.rbegin(); it != created_links_.rend(); ++it)
    if (auto s = ctx_.nodes->delete_link(it->first, it->second); !s)
      spdlog::warn("{}: node '{}': {}", ctx_.spec->name, it->first, s.error().message);
  created_links_.clear();
}

}  // namespace vpnlab
