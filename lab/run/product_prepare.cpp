// The product session's values and preparation: what templates see (the node's own values,
// the run's, each peer's as peer_*, values captured from key tools), and the host-side
// [[prepare]] entries that render files and run key tools before any node starts.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>
#include <thread>

#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/base/trusted_dir.h"
#include "lab/run/product_session.h"

namespace vpnlab {

int data_plane_threads(const Plan& plan, const PlanNode& node) {
  if (plan.threads) return *plan.threads;
  if (!node.cpus.empty()) return static_cast<int>(node.cpus.size());
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

namespace {

std::string peer_underlay(const PlanNode& self, const PlanNode& peer) {
  for (const auto& mine : self.underlay)
    for (const auto& theirs : peer.underlay)
      if (mine.link == theirs.link) return theirs.addr.addr.str();
  return peer.underlay.empty() ? "" : peer.underlay.front().addr.addr.str();
}

// "a/24, b/24" (with `first` in front when given): the subnets a gateway serves.
std::string join_prefixes(const std::vector<Ipv4Prefix>& prefixes, const std::string& first = "") {
  std::string out = first;
  for (const auto& p : prefixes) out += (out.empty() ? "" : ", ") + p.str();
  return out;
}

// Node names may hold '-', which some products refuse in their own names (tinc).
std::string ident_of(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

}  // namespace

std::string ProductSession::instance() const {
  return ctx_.spec->name + (ctx_.instance.empty() ? "" : "/" + ctx_.instance);
}

std::string ProductSession::node_dir(const std::string& node) const {
  return ctx_.run_dir + "/nodes/" + instance() + "/" + node;
}

std::string ProductSession::secrets_dir(const std::string& node) const {
  return ctx_.run_dir + "/secrets/" + instance() + "/" + node;
}

std::map<std::string, std::string> ProductSession::peer_values(const PlanNode& node, const PlanNode& peer) const {
  std::map<std::string, std::string> p = {
      {"peer_name", peer.name},
      {"peer_node_ident", ident_of(peer.name)},
      {"peer_overlay_address", peer.overlay.addr.str()},
      {"peer_subnets", join_prefixes(peer.sites)},
      {"peer_allowed_ips", join_prefixes(peer.sites, peer.overlay.addr.str() + "/32")},
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

// A native relay chain: the relay node gets {{#am_relay}}, the others its overlay address
// in {{#relays}}; and the peers each node dials.
void ProductSession::add_relay_lists(const PlanNode& node, TemplateContext* tc) const {
  const Plan& plan = *ctx_.plan;
  tc->lists["am_relay"] = node.relay ? std::vector<TemplateVars>{TemplateVars{}} : std::vector<TemplateVars>{};
  auto& relays = tc->lists["relays"];
  for (const PlanNode& other : plan.nodes)
    if (other.relay && other.name != node.name)
      relays.push_back({{"relay_name", other.name},
                        {"relay_overlay_address", other.overlay.addr.str()},
                        {"relay_underlay_address", peer_underlay(node, other)}});
  // A hop's service node: its relay's address on each of the hop's links (plan_with_services).
  for (const auto& [name, addr] : node.served_relays)
    relays.push_back({{"relay_name", name}, {"relay_underlay_address", addr.str()}});
  if (relays.size() == 1)
    for (const auto& [k, v] : relays.front()) tc->vars[k] = v;
  // The peers a node dials: all others, but an end of a native relay chain dials only its
  // relay (the other end's underlay is out of its reach: the relay must carry the packets).
  auto& dial = tc->lists["dial_peers"];
  for (const PlanNode& other : plan.nodes)
    if (other.name != node.name && (relays.empty() || other.relay)) dial.push_back(peer_values(node, other));
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
      {"run_secrets", ctx_.run_dir + "/secrets/" + instance()},
      {"overlay_netmask",
       Ipv4Addr{plan.overlay_subnet.length == 0 ? 0u : ~uint32_t{0} << (32 - plan.overlay_subnet.length)}.str()},
      {"first_overlay_address", plan.nodes.front().overlay.addr.str()},
      {"first_node_ident", ident_of(plan.nodes.front().name)},
  };
  for (const auto& [k, v] : ctx_.run_values) tc.vars[k] = v;
  for (const auto& [k, v] : run_captured_) tc.vars[k] = v;
  if (!node) return tc;
  size_t index = static_cast<size_t>(node - plan.nodes.data());
  tc.vars["node"] = node->name;
  tc.vars["node_ident"] = ident_of(node->name);
  tc.vars["node_index"] = std::to_string(index);
  tc.vars["threads"] = std::to_string(data_plane_threads(plan, *node));
  tc.vars["overlay_address"] = node->overlay.addr.str();
  tc.vars["overlay_cidr"] = node->overlay.str();
  // The address the tunnel's packets leave from: on a link toward other VPN nodes.
  tc.vars["underlay_address"] = node->underlay.empty() ? "" : node->underlay.front().addr.addr.str();
  for (auto it = node->underlay.rbegin(); it != node->underlay.rend(); ++it)
    if (it->carrier) tc.vars["underlay_address"] = it->addr.addr.str();
  tc.vars["subnets"] = join_prefixes(node->sites);
  tc.vars["allowed_ips"] = join_prefixes(node->sites, node->overlay.addr.str() + "/32");
  auto& own_sites = tc.lists["sites"];  // one item per site behind this node: tinc's Subnet lines
  for (const auto& site : node->sites) own_sites.push_back({{"site", site.str()}});
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
  if (auto given = ctx_.node_values.find(node->name); given != ctx_.node_values.end())
    for (const auto& [k, v] : given->second) tc.vars[k] = v;
  // In a two-node (p2p) overlay "the peer" is unambiguous: its values are there as peer_*.
  if (!peer && plan.nodes.size() == 2) peer = &plan.nodes[index == 0 ? 1 : 0];
  if (peer)
    for (const auto& [k, v] : peer_values(*node, *peer)) tc.vars[k] = v;
  auto& peers = tc.lists["peers"];
  auto& sites = tc.lists["remote_sites"];  // every other gateway's site, via its overlay address
  for (const PlanNode& other : plan.nodes) {
    if (other.name == node->name) continue;
    peers.push_back(peer_values(*node, other));
    for (const auto& site : other.sites)
      sites.push_back({{"site", site.str()}, {"site_via", other.overlay.addr.str()}});
  }
  add_relay_lists(*node, &tc);
  // One-item or empty lists: {{#first}}...{{/first}} renders only on the first node.
  tc.lists["first"] = index == 0 ? std::vector<TemplateVars>{TemplateVars{}} : std::vector<TemplateVars>{};
  tc.lists["others"] = index != 0 ? std::vector<TemplateVars>{TemplateVars{}} : std::vector<TemplateVars>{};
  return tc;
}

Result<std::string> ProductSession::expand(const std::string& text, const TemplateContext& ctx) const {
  return render_template(text, ctx, ctx_.spec->dir + "/product.toml");
}

namespace {

// Lines of `text` that start with `prefix` give the value after it ("" = all of it, trimmed).
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

Status capture_values(const std::string& stdout_path, const std::vector<std::pair<std::string, std::string>>& capture,
                      const std::string& where, const std::string& program, std::map<std::string, std::string>* into) {
  auto output = read_input_file(stdout_path, kMaxToolOutputBytes);
  if (!output) return with_context(output.error(), where + ": what '" + program + "' printed");
  for (const auto& [name, prefix] : capture) {
    std::string value = captured_value(*output, prefix);
    if (value.empty())
      return make_error(where + ": '" + program + "' printed no line starting with '" + prefix + "' (for " + name + ")",
                        "see " + stdout_path);
    (*into)[name] = value;
  }
  return ok_status();
}

namespace {

// Calls fn for every (entry, 1-based entry number, node, peer) [[prepare]] is done for, in
// order: entry by entry, each for every node (and, scope "peer", every other node) before
// the next, so later entries see what earlier ones made. Run scope: no node, no peer.
Status for_each_prepare(const ProductSpec& spec, const Plan& plan,
                        const std::function<Status(const PrepareStep&, size_t, const PlanNode*, const PlanNode*)>& fn) {
  size_t index = 0;
  for (const PrepareStep& step : spec.prepare) {
    ++index;
    if (step.scope == PrepareStep::Scope::Run) {
      if (auto s = fn(step, index, nullptr, nullptr); !s) return s;
      continue;
    }
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
      if (!node_filter_applies(step.nodes, i, plan.nodes[i].relay)) continue;
      if (step.scope == PrepareStep::Scope::Node) {
        if (auto s = fn(step, index, &plan.nodes[i], nullptr); !s) return s;
        continue;
      }
      for (const PlanNode& peer : plan.nodes)
        if (peer.name != plan.nodes[i].name)
          if (auto s = fn(step, index, &plan.nodes[i], &peer); !s) return s;
    }
  }
  return ok_status();
}

// The templated texts a node's steps and counters use (argv, link names, env values).
std::vector<std::string> step_texts(const ProductSpec& spec) {
  std::vector<std::string> texts = spec.counters ? spec.counters->argv : std::vector<std::string>{};
  for (const ProductStep& step : spec.steps) {
    texts.insert(texts.end(), step.argv.begin(), step.argv.end());
    texts.push_back(step.ifname);
    texts.push_back(step.link.remote);
    for (const auto& [k, v] : step.env) texts.push_back(v);
  }
  return texts;
}

}  // namespace

// [path] runs from a node toward a peer, so its texts are checked for every pair; `relayed`
// only between a native relay chain's ends (the nodes that have a relay).
Status ProductSession::check_path_templates() const {
  const auto& path = ctx_.spec->path;
  if (!path) return ok_status();
  const Plan& plan = *ctx_.plan;
  for (const PlanNode& node : plan.nodes)
    for (const PlanNode& peer : plan.nodes) {
      if (peer.name == node.name) continue;
      TemplateContext tc = context_for(&node, &peer);
      std::vector<std::string> texts = path->argv;
      texts.push_back(path->expect);
      if (!tc.lists["relays"].empty() && !peer.relay && !path->relayed.empty()) texts.push_back(path->relayed);
      for (const auto& t : texts)
        if (auto r = expand(t, tc); !r) return r.error();
    }
  return ok_status();
}

Status ProductSession::prepare_one(const PrepareStep& step, size_t index, const PlanNode* node, const PlanNode* peer) {
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
  std::string log_dir = this->log_dir();
  std::string base = log_dir + "/prepare-" + std::to_string(index) + "-" + (node ? node->name : "run") +
                     (peer ? "-" + peer->name : "");
  sp.stdout_path = base + ".out";
  sp.stderr_path = base + ".err";
  sp.cwd = node ? tc.vars["dir"] : ctx_.run_dir;
  auto out = run_command(sp, 60, ctx_.interrupt_fd);
  if (!out) return with_context(out.error(), where);
  if (out->interrupted) return make_error("interrupted");
  if (out->timed_out || out->exit_status != 0)
    return make_error(where + ": preparing with '" + sp.argv[0] + "' failed (" +
                          (out->timed_out ? "timed out" : "status " + std::to_string(out->exit_status)) + ")\n" +
                          log_tail(sp.stderr_path),
                      "see " + sp.stderr_path);
  if (step.capture.empty()) return ok_status();
  return capture_values(sp.stdout_path, step.capture, where, sp.argv[0],
                        node ? &node_captured_[node->name] : &run_captured_);
}

std::string ProductSession::log_dir() const {
  return ctx_.run_dir + "/logs/" + ctx_.spec->name + (ctx_.round > 0 ? "/round-" + std::to_string(ctx_.round) : "") +
         (ctx_.attempt > 1 ? "/attempt-" + std::to_string(ctx_.attempt) : "") +
         (ctx_.instance.empty() ? "" : "/" + ctx_.instance);
}

Status ProductSession::prepare() {
  const Plan& plan = *ctx_.plan;
  // Every bring-up starts from clean product directories: key tools refuse to overwrite
  // what an earlier round made (nebula-cert: "refusing to overwrite existing CA key").
  (void)remove_tree(ctx_.run_dir + "/nodes/" + instance());
  (void)remove_tree(ctx_.run_dir + "/secrets/" + instance());
  for (const PlanNode& node : plan.nodes) {
    if (auto s = make_dirs(node_dir(node.name), 0750); !s) return s;
    if (auto s = make_dirs(secrets_dir(node.name), 0700); !s) return s;
  }
  if (auto s = make_dirs(log_dir(), 0750); !s) return s;
  if (auto s = make_dirs(ctx_.run_dir + "/secrets/" + instance(), 0700); !s) return s;
  auto prepare = [&](const PrepareStep& step, size_t index, const PlanNode* node, const PlanNode* peer) {
    return prepare_one(step, index, node, peer);
  };
  if (auto s = for_each_prepare(*ctx_.spec, plan, prepare); !s) return s;
  // Step templates are checked here too, so a bad spec fails before anything starts.
  for (const PlanNode& node : plan.nodes) {
    TemplateContext tc = context_for(&node);
    for (const auto& t : step_texts(*ctx_.spec))
      if (auto r = expand(t, tc); !r) return r.error();
  }
  return check_path_templates();
}

Status ProductSession::check_templates(const ProductSpec& spec, const Plan& plan,
                                       const std::map<std::string, std::map<std::string, std::string>>& node_values) {
  if (!spec.tunnel || plan.nodes.empty()) return ok_status();
  // Stand-ins for what exists only during a run: keys (all zero), the PSK, captured values.
  std::map<std::string, X25519KeyPair> keys;
  for (const auto& n : plan.nodes) keys[n.name] = X25519KeyPair{};
  Context dry_ctx{&plan, nullptr, &spec, &keys, "/validate", -1, {{"psk", std::string(64, '0')}}, 0};
  dry_ctx.node_values = node_values;
  ProductSession dry(dry_ctx);
  for (const PrepareStep& step : spec.prepare)
    for (const auto& [name, prefix] : step.capture) {
      if (step.scope == PrepareStep::Scope::Run)
        dry.run_captured_[name] = "captured";
      else
        for (const auto& n : plan.nodes) dry.node_captured_[n.name][name] = "captured";
    }
  for (const ProductStep& step : spec.steps)
    for (const auto& [name, prefix] : step.capture)
      for (const auto& n : plan.nodes) dry.node_captured_[n.name][name] = "captured";
  auto render = [&](const PrepareStep& step, size_t, const PlanNode* node, const PlanNode* peer) -> Status {
    TemplateContext tc = dry.context_for(node, peer);
    if (!step.file.empty()) {
      if (auto r = dry.expand(step.file, tc); !r) return r.error();
      if (auto r = render_template(step.template_text, tc, step.template_path); !r) return r.error();
    }
    for (const auto& a : step.argv)
      if (auto r = dry.expand(a, tc); !r) return r.error();
    return ok_status();
  };
  if (auto s = for_each_prepare(spec, plan, render); !s) return s;
  for (const PlanNode& node : plan.nodes) {
    TemplateContext tc = dry.context_for(&node);
    for (const auto& t : step_texts(spec))
      if (auto r = dry.expand(t, tc); !r) return r.error();
  }
  return dry.check_path_templates();
}

}  // namespace vpnlab
