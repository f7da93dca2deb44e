#include "lab/run/environment.h"

#include "lab/record/run_layout.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <functional>
#include <sstream>

#include <algorithm>

#include "lab/base/cpu_stat.h"
#include "lab/base/fs_util.h"
#include "lab/base/json_depth.h"
#include "lab/base/tbf.h"
#include "lab/base/utc_time.h"
#include "lab/model/sweep.h"
#include "lab/run/keys.h"
#include "lab/run/product_session.h"
#include "lab/run/variant.h"

namespace vpnlab {

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string or_absent(const std::string& text, const std::string& why) {
  std::string t = trimmed(text);
  return t.empty() ? "not exposed (" + why + ")" : t;
}

// Turbo/boost as the kernel exposes it: acpi-cpufreq's boost, intel_pstate's no_turbo, or
// nothing (VMs usually hide it: then the record says so instead of staying empty).
std::string turbo_state() {
  std::string boost = trimmed(read_file_text("/sys/devices/system/cpu/cpufreq/boost"));
  if (!boost.empty()) return boost == "1" ? "on (cpufreq boost)" : "off (cpufreq boost)";
  std::string no_turbo = trimmed(read_file_text("/sys/devices/system/cpu/intel_pstate/no_turbo"));
  if (!no_turbo.empty()) return no_turbo == "0" ? "on (intel_pstate)" : "off (intel_pstate)";
  return "not exposed (no cpufreq boost control)";
}

}  // namespace

namespace {

// A product's threads knob as this run set it: "GOMAXPROCS = {{threads}}" becomes
// "GOMAXPROCS = 1", the value every VPN node got (or "its node's CPU count" when they differ).
std::string with_threads(std::string knob, const Plan& plan) {
  std::vector<int> per_node;
  for (const auto& n : plan.nodes)
    if (n.vpn) per_node.push_back(data_plane_threads(plan, n));
  if (per_node.empty()) return knob;
  const bool same = std::all_of(per_node.begin(), per_node.end(), [&](int v) { return v == per_node.front(); });
  const std::string value = same ? std::to_string(per_node.front()) : "its node's CPU count";
  for (size_t at; (at = knob.find("{{threads}}")) != std::string::npos;) knob.replace(at, 11, value);
  return knob;
}

}  // namespace

nlohmann::json run_end_fields() { return {{"finished", utc_now()}, {"steal_s_at_end", read_cpu_times().steal}}; }

nlohmann::json lab_points_json(const Plan& plan) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : plan.lab_points)
    out.push_back({{"point", point_text(p.values)},
                   {"underlay_mtu", p.underlay_mtu},
                   {"overlay_mtu", p.overlay_mtu ? p.overlay_mtu : plan.overlay_mtu},
                   {"rate_bps", p.rate_bps},
                   {"threads", p.threads ? nlohmann::json(*p.threads) : nlohmann::json()},
                   {"variant", p.variant}});
  return out;
}

nlohmann::json variants_json(const Plan& plan) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : plan.variants) out.push_back(variant_json(v));
  return out;
}

namespace {

// The machine that measures: kernel, CPU, the host-wide sysctls a namespace inherits or is
// bounded by (the per-namespace ones the lab sets are in sysctls.json), which machine.
void add_machine(nlohmann::json& env) {
  utsname u{};
  uname(&u);
  std::string cpuinfo = read_file_text("/proc/cpuinfo");
  std::string flags = " " + cpuinfo_field(cpuinfo, "flags") + " ";
  env["steal_s_at_start"] = read_cpu_times().steal;
  nlohmann::json host_sysctls;
  for (const char* k : {"net/core/rmem_max", "net/core/wmem_max", "net/core/default_qdisc",
                        "net/core/netdev_max_backlog", "net/ipv4/tcp_congestion_control",
                        "net/ipv4/tcp_available_congestion_control", "kernel/sched_autogroup_enabled"})
    host_sysctls[k] = trimmed(read_file_text(std::string("/proc/sys/") + k));
  env["host_sysctls"] = host_sysctls;
  // Which machine measured: the history only puts runs of one machine in a series. Derived
  // from /etc/machine-id (never the id itself, which other programs use as a secret seed).
  if (std::string id = trimmed(read_file_text("/etc/machine-id")); !id.empty())
    env["machine_id"] = sha256_hex("vpnlab machine " + id).substr(0, 16);
  env["kernel"] = {{"release", u.release},
                   {"version", u.version},
                   {"machine", u.machine},
                   {"cmdline", trimmed(read_file_text("/proc/cmdline"))}};
  env["cpu"] = {
      {"model", cpuinfo_field(cpuinfo, "model name")},
      {"count", sysconf(_SC_NPROCESSORS_ONLN)},
      {"aes_ni", flags.find(" aes ") != std::string::npos},
      {"smt_active", or_absent(read_file_text("/sys/devices/system/cpu/smt/active"), "no SMT control")},
      {"governor", or_absent(read_file_text("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"), "no cpufreq")},
      {"turbo", turbo_state()}};
}

// Shaped links and which tests cross them: the report's share of the rate and ceilings.
nlohmann::json shaped_links_json(const Plan& plan) {
  nlohmann::json shaped = nlohmann::json::array();
  for (const auto& v : plan.veths) {
    if (v.rate_bps <= 0) continue;
    bool seen = false;
    for (const auto& l : shaped) seen = seen || l["link"] == v.link;
    if (seen) continue;
    TbfParams tbf = tbf_params(v.rate_bps, v.mtu);
    shaped.push_back({{"link", v.link},
                      {"rate_bps", v.rate_bps},
                      {"burst_bytes", tbf.burst_bytes},
                      {"limit_bytes", tbf.limit_bytes},
                      {"mtu", v.mtu},
                      {"where", "egress of every end (TBF)"}});
  }
  return shaped;
}

// Impaired links (netem): what each end's egress was asked for, and from which profile.
nlohmann::json impaired_links_json(const Plan& plan) {
  nlohmann::json impaired = nlohmann::json::array();
  for (const auto& v : plan.veths) {
    if (!v.impaired()) continue;
    if (std::any_of(impaired.begin(), impaired.end(), [&](const nlohmann::json& l) { return l["link"] == v.link; }))
      continue;
    impaired.push_back({{"link", v.link},
                        {"profile", v.profile},
                        {"delay_ms", v.delay_ms},
                        {"jitter_ms", v.jitter_ms},
                        {"loss_pct", v.loss_pct},
                        {"reorder", v.reorder},
                        {"where", "egress of every end (netem)"}});
  }
  return impaired;
}

}  // namespace

nlohmann::json describe_environment(const Plan& plan, const std::vector<ProductSpec>& specs,
                                    const std::vector<Availability>& availability) {
  nlohmann::json env;
  env["schema"] = kEnvironmentSchema;
  env["vpnlab_version"] = vpnlab_version();
  env["started"] = utc_now();
  env["run_id"] = plan.run_id;
  env["backend"] = plan.backend;
  env["accel"] = backend_traits(plan.backend).guests ? "to be probed" : "none (namespaces share the host kernel)";
  env["topology_sha256"] = sha256_hex(read_file_text(plan.topology_file));
  env["iperf3"] = first_output_line({"iperf3", "--version"});
  add_machine(env);
  env["topology_file"] = plan.topology_file;
  env["overlay"] = {{"subnet", plan.overlay_subnet.str()}, {"mtu", plan.overlay_mtu}, {"port", plan.overlay_port}};
  env["bench"] = {{"samples", plan.samples},
                  {"duration_s", plan.duration_s},
                  {"warmup_s", plan.warmup_s},
                  {"interleaved", plan.interleave},
                  {"pinned", plan.pinned},
                  {"rps", plan.pinned && plan.rps},
                  {"threads", plan.threads ? nlohmann::json(*plan.threads) : nlohmann::json("per node: its cpus")}};
  // The tests measured (a suite's scenario, `run --test`, may take some of the file's): a
  // resumed or repeated run measures the same.
  env["bench"]["tests"] = nlohmann::json::array();
  for (const auto& t : plan.tests) env["bench"]["tests"].push_back(t.spec.name);
  // Adaptive sampling's target and budget, for --resume; absent: a fixed count.
  if (plan.precision) {
    env["bench"]["precision"] = *plan.precision;
    env["bench"]["max_time_s"] = plan.max_time_s;
  }
  for (const auto& n : plan.nodes)
    env["pinning"][n.name] = {
        {"cpus", n.cpus}, {"load_cpus", n.load_cpus}, {"computed", n.default_cpus}, {"runs_vpn", n.vpn}};
  env["pinning_notes"] = plan.pin_notes;
  if (!plan.pin_warnings.empty()) env["pinning_warnings"] = plan.pin_warnings;
  if (auto shaped = shaped_links_json(plan); !shaped.empty())
    env["shaped_links"] = shaped;  // absent: no link is shaped
  if (auto impaired = impaired_links_json(plan); !impaired.empty())
    env["impaired_links"] = impaired;  // absent: none impaired
  for (const auto& t : plan.tests) env["test_links"][t.spec.name] = t.underlay_links;
  // The [bench] sweep: what each point changed (absent: no such sweep).
  if (!plan.lab_points.empty()) env["lab_points"] = lab_points_json(plan);
  if (!plan.variants.empty()) env["variants"] = variants_json(plan);
  env["requested_products"] = plan.products;  // as given (NAME@TAG=/path too), for `run --from`
  for (size_t i = 0; i < specs.size(); ++i) {
    const Availability& a = availability[i];
    auto& p = env["products"][specs[i].name];
    p = {{"version", a.version},
         {"cipher", specs[i].cipher},
         {"available", a.available},
         {"threads_knob",
          specs[i].threads.empty() ? "none (no data-plane threads of its own)" : with_threads(specs[i].threads, plan)},
         {"tunnel", specs[i].tunnel},
         {"overhead_bytes", specs[i].overhead},
         {"origin", specs[i].origin}};
    if (!a.available) p["reason"] = a.reason;
  }
  return env;
}

}  // namespace vpnlab
