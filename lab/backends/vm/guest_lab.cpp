#include "lab/backends/vm/guest_lab.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "lab/base/fs_util.h"
#include "lab/base/trusted_dir.h"
#include "lab/kernel/namespace.h"
#include "lab/kernel/sysctl.h"

namespace fs = std::filesystem;

namespace vpnlab {
namespace {

std::vector<std::string> link_order(const Plan& plan) {
  std::vector<std::string> links;
  for (const auto& v : plan.veths)
    if (std::find(links.begin(), links.end(), v.link) == links.end()) links.push_back(v.link);
  return links;
}

int link_mtu(const Plan& plan, const std::string& link) {
  for (const auto& v : plan.veths)
    if (v.link == link) return v.mtu;
  return 1500;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string vm_dir_of(const Plan& plan) { return "/run/" + plan.ns_prefix + "vm"; }

std::string agent_socket_of(const Plan& plan, const std::string& node) {
  return vm_dir_of(plan) + "/" + node + ".agent";
}

std::vector<int> guest_host_cpus(const PlanNode& node) {
  std::vector<int> cpus = node.cpus;
  for (int c : node.load_cpus)
    if (std::find(cpus.begin(), cpus.end(), c) == cpus.end()) cpus.push_back(c);
  return cpus;
}

std::vector<GuestSpec> guest_specs(const Plan& plan, const Image& image, const GuestLabOptions& opts) {
  auto links = link_order(plan);
  std::vector<GuestSpec> out;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const PlanNode& n = plan.nodes[i];
    GuestSpec g;
    g.name = plan.ns_prefix + n.name;
    g.accel = opts.accel;
    g.memory_mib = opts.memory_mib;
    // The guest runs the node's VPN and its iperf3: one vCPU per distinct host CPU given
    // to it, each vCPU pinned to one of them; QEMU's own threads on the first.
    std::vector<int> cpus = guest_host_cpus(n);
    g.vcpus = std::max<int>(1, static_cast<int>(cpus.size()));
    if (plan.pinned && !cpus.empty()) {
      g.vcpu_pins = cpus;
      g.emulator_pins = {cpus.front()};
    }
    g.kernel = image.vmlinux;
    g.initrd = image.initrd;
    auto slash = opts.agent_path.rfind('/');
    std::string agent_dir = slash == std::string::npos ? "." : opts.agent_path.substr(0, slash);
    g.cmdline = "console=ttyS0 quiet panic=-1 vpnlab.node=" + n.name + " vpnlab.run=" + opts.run_dir +
                " vpnlab.agent=" + opts.agent_path.substr(slash + 1) +
                (image.rootfs.empty() ? "" : " vpnlab.overlay=1");
    g.shares = {{image.rootfs.empty() ? "/" : image.rootfs, "root", true},
                {image.modules_root, "modules", true},
                {opts.run_dir, "run", false},
                {agent_dir, "agent", true}};
    for (const auto& u : n.underlay) {
      auto li = std::find(links.begin(), links.end(), u.link) - links.begin();
      g.nics.push_back({"br" + std::to_string(li), "vl" + std::to_string(i) + "-" + std::to_string(li),
                        lab_mac(static_cast<int>(i), static_cast<int>(li)), link_mtu(plan, u.link)});
    }
    g.agent_socket = agent_socket_of(plan, n.name);
    g.console_log = opts.run_dir + "/vm/" + n.name + ".console.log";
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<std::string> vm_state_dirs(const std::vector<std::string>& only) {
  // /run/<prefix>vm, made only by vpnlab (it holds libvirt/); its VM-host namespace is
  // "<prefix>vm" + "host".
  std::vector<std::string> dirs;
  std::error_code ec;
  for (auto& e : fs::directory_iterator("/run", ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(kLabPrefix, 0) != 0 || name.size() < 3 || name.substr(name.size() - 3) != "-vm") continue;
    if (!fs::exists(e.path() / "libvirt")) continue;
    std::string host_ns = name + "host";
    if (!only.empty() && std::find(only.begin(), only.end(), host_ns) == only.end()) continue;
    dirs.push_back(e.path().string());
  }
  return dirs;
}

Result<std::unique_ptr<GuestLab>> GuestLab::start(const Plan& plan, const Image& image, const GuestLabOptions& opts) {
  if (opts.run_dir.find_first_of(" \t\n") != std::string::npos)
    return make_error("run directory '" + opts.run_dir + "' contains white space",
                      "the guests get its path on the kernel command line: use --out with a path without spaces");
  std::unique_ptr<GuestLab> lab(new GuestLab());
  lab->vm_dir_ = vm_dir_of(plan);
  auto fail = [&](Error e) -> Result<std::unique_ptr<GuestLab>> {
    (void)lab->teardown(10);
    return e;
  };
  if (auto s = make_dirs(lab->vm_dir_ + "/libvirt", 0700); !s) return s.error();
  if (auto s = make_dirs(opts.run_dir + "/vm", 0755); !s) return s.error();

  // The VM-host namespace: one bridge per link; libvirt adds each guest's tap to it.
  auto made = create_namespaces({{plan.ns_prefix + "vmhost", bridge_sysctls()}});
  if (!made) return fail(made.error());
  lab->ns_ = std::move(made.value());
  Netns& host = lab->ns_.front();
  auto links = link_order(plan);
  for (size_t i = 0; i < links.size(); ++i) {
    std::string br = "br" + std::to_string(i);
    if (auto s = create_bridge(host.sock.get(), br, link_mtu(plan, links[i])); !s)
      return fail(with_context(s.error(), "link '" + links[i] + "'"));
    if (auto s = set_link(host.sock.get(), br, 0, true); !s)
      return fail(with_context(s.error(), "link '" + links[i] + "'"));
  }

  // The helper starts inside that namespace, before it has any thread of its own.
  SpawnSpec helper;
  std::string sock = lab->vm_dir_ + "/vmhost.sock";
  helper.argv = {opts.vmhost_path, lab->vm_dir_ + "/libvirt", sock};
  helper.netns_fd = host.fd.get();
  helper.stdout_path = opts.run_dir + "/vm/vmhost.log";
  auto child = Child::spawn(helper);
  if (!child) return fail(with_context(child.error(), "vpnlab-vmhost"));
  lab->helper_ = std::move(*child);
  auto t0 = std::chrono::steady_clock::now();
  for (;;) {  // bounded probe: no event says "the helper is listening"
    if (auto fd = connect_unix(sock)) {
      lab->helper_ch_ = std::make_unique<JsonLines>(std::move(*fd));
      break;
    }
    if (!lab->helper_->running() || seconds_since(t0) > 10)
      return fail(make_error("vpnlab-vmhost did not start", log_tail(helper.stdout_path, 4)));
    ::usleep(20000);
  }
  auto ready = lab->helper_ch_->receive(30000, opts.interrupt_fd);
  if (!ready) return fail(with_context(ready.error(), "vpnlab-vmhost"));
  if (!ready->value("ok", false))
    return fail(make_error(ready->value("error", "libvirt failed"), ready->value("hint", "")));

  // Start every guest, then wait for each: they boot in parallel.
  auto specs = guest_specs(plan, image, opts);
  std::vector<std::chrono::steady_clock::time_point> started;
  for (const auto& g : specs) {
    if (auto s = write_file(opts.run_dir + "/vm/" + g.name + ".xml", domain_xml(g), 0644); !s) return fail(s.error());
    if (auto s = lab->helper_ch_->send({{"op", "start"}, {"xml", domain_xml(g)}}); !s) return fail(s.error());
    auto r = lab->helper_ch_->receive(60000, opts.interrupt_fd);
    if (!r) return fail(with_context(r.error(), "guest " + g.name));
    if (!r->value("ok", false))
      return fail(make_error("guest " + g.name + ": libvirt: " + r->value("error", "?"),
                             "its domain XML is in " + opts.run_dir + "/vm/"));
    started.push_back(std::chrono::steady_clock::now());
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const PlanNode& n = plan.nodes[i];
    GuestHello hello;
    auto agent = AgentClient::connect(specs[i].agent_socket, opts.boot_timeout_s, opts.interrupt_fd, &hello);
    if (!agent)
      return fail(
          make_error("guest '" + n.name + "' (" + std::string(accel_name(opts.accel)) + "): " + agent.error().message,
                     "its console: " + specs[i].console_log + "\n" + log_tail(specs[i].console_log, 6)));
    lab->guests_.push_back({n.name, specs[i].name, hello.kernel, seconds_since(started[i]), specs[i].console_log});
    if (auto s = lab->configure(plan, n, specs[i], **agent); !s)
      return fail(with_context(s.error(), "guest '" + n.name + "'"));
    lab->agents_[n.name] = std::move(*agent);
  }
  return lab;
}

Status GuestLab::configure(const Plan& plan, const PlanNode& node, const GuestSpec& spec, AgentClient& agent) {
  if (auto r = agent.call({{"op", "setup_nic"}, {"name", "lo"}, {"up", true}}); !r) return r.error();
  // The guest finds each NIC by the MAC its domain XML gave it.
  for (size_t k = 0; k < node.underlay.size(); ++k) {
    const auto& u = node.underlay[k];
    nlohmann::json req{{"op", "setup_nic"},       {"mac", spec.nics.at(k).mac}, {"name", u.ifname},
                       {"addrs", {u.addr.str()}}, {"mtu", spec.nics.at(k).mtu}, {"up", true}};
    // A shaped link is shaped on each node's egress, in the guest (its kernel has netem).
    for (const auto& v : plan.veths)
      if (v.link == u.link && (v.rate_bps > 0 || v.delay_ms > 0 || v.jitter_ms > 0 || v.loss_pct > 0)) {
        req.update({{"rate_bps", v.rate_bps},
                    {"delay_ms", v.delay_ms},
                    {"jitter_ms", v.jitter_ms},
                    {"loss_pct", v.loss_pct},
                    {"reorder", v.reorder}});
        break;
      }
    if (auto r = agent.call(req); !r) return with_context(r.error(), "link '" + u.link + "'");
  }
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [k, v] : node_sysctls()) settings[k] = v;
  if (node.forwards) settings["net/ipv4/ip_forward"] = "1";
  if (auto r = agent.call({{"op", "sysctl"}, {"settings", settings}}); !r) return r.error();
  for (const auto& rt : plan.routes)
    if (rt.node == node.name && rt.when == PlanRoute::When::always)
      if (auto r = agent.call({{"op", "route"}, {"dest", rt.dest.str()}, {"via", rt.via.str()}}); !r) return r.error();
  return ok_status();
}

std::vector<uint64_t> GuestLab::inodes() const {
  std::vector<uint64_t> out;
  for (const auto& n : ns_) out.push_back(n.inode);
  return out;
}

Status GuestLab::teardown(double timeout_s) {
  if (torn_down_) return ok_status();
  torn_down_ = true;
  agents_.clear();
  Status first = ok_status();
  if (helper_ch_) {
    // The helper destroys every guest it started (transient domains: nothing to undefine).
    if (helper_ch_->send({{"op", "quit"}}))
      if (auto r = helper_ch_->receive(30000); !r && first) first = with_context(r.error(), "vpnlab-vmhost quit");
    helper_ch_.reset();
  }
  if (helper_) {
    helper_->wait_exit(5000);
    helper_->stop(2000);
    helper_.reset();
  }
  // Anything QEMU or libvirt left in the VM-host namespace ends with it.
  if (auto s = remove_namespaces(ns_, timeout_s); !s && first) first = s;
  if (auto s = remove_tree(vm_dir_); !s && first) first = s;
  return first;
}

Status GuestLab::keep() {
  if (!helper_ch_ || !helper_) return make_error("the VM helper is not running");
  if (auto s = helper_ch_->send({{"op", "detach"}}); !s) return with_context(s.error(), "vpnlab-vmhost detach");
  auto r = helper_ch_->receive(10000);
  if (!r) return with_context(r.error(), "vpnlab-vmhost detach");
  agents_.clear();  // the guest agents wait for the next client (`vpnlab exec`)
  helper_ch_.reset();
  helper_->disown();
  helper_.reset();
  ns_.clear();  // closes our handles; the namespace stays pinned in /run/netns
  torn_down_ = true;
  return ok_status();
}

GuestLab::~GuestLab() { (void)teardown(); }

}  // namespace vpnlab
