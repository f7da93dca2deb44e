#include "lab/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <sstream>

#include "lab/fs_util.h"

#ifndef VPNLAB_VERSION
#define VPNLAB_VERSION "unknown"
#endif

namespace vpnlab {

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string cpuinfo_field(const std::string& cpuinfo, const std::string& key) {
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return line.substr(line.find(':') + 2);
  return "";
}

}  // namespace

nlohmann::json describe_environment(const Plan& plan, const std::vector<ProductSpec>& specs,
                                    const std::vector<Availability>& availability) {
  nlohmann::json env;
  utsname u{};
  uname(&u);
  char started[32];
  std::time_t t = std::time(nullptr);
  std::strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  std::string cpuinfo = read_file_text("/proc/cpuinfo");
  std::string flags = " " + cpuinfo_field(cpuinfo, "flags") + " ";
  env["schema"] = 1;
  env["vpnlab_version"] = VPNLAB_VERSION;
  env["started"] = started;
  env["run_id"] = plan.run_id;
  env["backend"] = "netns";
  env["topology_file"] = plan.topology_file;
  env["kernel"] = {{"release", u.release}, {"version", u.version}, {"machine", u.machine},
                   {"cmdline", trimmed(read_file_text("/proc/cmdline"))}};
  env["cpu"] = {{"model", cpuinfo_field(cpuinfo, "model name")},
                {"count", sysconf(_SC_NPROCESSORS_ONLN)},
                {"aes_ni", flags.find(" aes ") != std::string::npos},
                {"smt_active", trimmed(read_file_text("/sys/devices/system/cpu/smt/active"))},
                {"governor", trimmed(read_file_text("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"))}};
  env["overlay"] = {{"subnet", plan.overlay_subnet.str()}, {"mtu", plan.overlay_mtu}, {"port", plan.overlay_port}};
  env["bench"] = {{"samples", plan.samples},       {"duration_s", plan.duration_s}, {"warmup_s", plan.warmup_s},
                  {"interleaved", plan.interleave}, {"pinned", plan.pinned},       {"rps", plan.pinned && plan.rps},
                  {"threads", plan.threads ? nlohmann::json(*plan.threads) : nlohmann::json("per node: its cpus")}};
  for (const auto& n : plan.nodes)
    env["pinning"][n.name] = {{"cpus", n.cpus}, {"load_cpus", n.load_cpus}, {"computed", n.default_cpus}, {"runs_vpn", n.vpn}};
  env["pinning_notes"] = plan.pin_notes;
  env["requested_products"] = plan.products;  // as given (NAME@TAG=/path too), for `run --from`
  for (size_t i = 0; i < specs.size(); ++i) {
    const Availability& a = availability[i];
    env["products"][specs[i].name] = {{"version", a.version},     {"cipher", specs[i].cipher}, {"available", a.available},
                                      {"reason", a.reason},       {"threads_knob", specs[i].threads}};
  }
  return env;
}

}  // namespace vpnlab
