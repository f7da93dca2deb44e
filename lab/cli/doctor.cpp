#include "lab/cli/doctor.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "lab/base/cpu_stat.h"
#include "lab/base/fs_util.h"
#include "lab/model/product_spec.h"
#include "lab/run/product_probe.h"
#include "netns/capabilities.h"

namespace vpnlab {

namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string cpu_field(const std::string& key) { return cpuinfo_field(read_file_text("/proc/cpuinfo"), key); }

// Share of CPU time stolen by the hypervisor over a short window.
double steal_percent(std::chrono::milliseconds window) {
  CpuTimes a = read_cpu_times();
  std::this_thread::sleep_for(window);  // a measuring window, not a wait for an event
  CpuTimes d = read_cpu_times() - a;
  double total = d.busy() + d.idle + d.iowait + d.steal;
  return total > 0 ? 100.0 * d.steal / total : 0;
}

void row(std::ostringstream& o, const std::string& name, const std::string& state, const std::string& detail) {
  char buf[512];
  snprintf(buf, sizeof buf, "  %-22s %-5s %s\n", name.c_str(), state.c_str(), detail.c_str());
  o << buf;
}

}  // namespace

std::string doctor_report(const std::string& products_dir) {
  std::ostringstream o;
  std::vector<std::string> meaning;
  o << "kernel " << first_line("/proc/sys/kernel/osrelease") << "\n\nnetwork features (each made for real in a scratch namespace):\n";
  auto caps = probe_network_capabilities("vpnlab-doctor-" + std::to_string(getpid()));
  bool wireguard = false, esp = false, netem = false, tbf = false;
  for (const auto& c : caps) {
    row(o, c.name, c.available ? "yes" : "no", c.detail);
    if (c.name == "wireguard-link") wireguard = c.available;
    if (c.name == "esp-state") esp = c.available;
    if (c.name == "netem-qdisc") netem = c.available;
    if (c.name == "tbf-qdisc") tbf = c.available;
  }
  if (!wireguard) meaning.push_back("no kernel WireGuard: wireguard-kernel can only run in guests (VM backend); never substituted by a userspace one");
  if (!esp) meaning.push_back("no kernel ESP: IPsec runs as strongswan-libipsec (userspace ESP, MTU at most 1400)");
  if (!netem) meaning.push_back("no netem: links cannot get delay, jitter or loss here");
  if (!tbf) meaning.push_back("no TBF: links cannot be rate-limited here");

  Capability kvm = probe_kvm();
  o << "\nvirtualisation:\n";
  row(o, "kvm", kvm.available ? "yes" : "no", kvm.detail);
  if (!kvm.available) meaning.push_back("no usable /dev/kvm: guests would run under TCG, several times slower; TCG and KVM results are never compared");

  o << "\nmachine:\n";
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  row(o, "cpus", std::to_string(cpus), cpu_field("model name"));
  bool aes = (" " + cpu_field("flags") + " ").find(" aes ") != std::string::npos;
  row(o, "aes-ni", aes ? "yes" : "no", aes ? "AES-GCM/CBC products get hardware AES" : "AES is done in software: ChaCha/Salsa products are favoured");
  std::string smt = first_line("/sys/devices/system/cpu/smt/active");
  row(o, "smt", smt == "1" ? "on" : smt == "0" ? "off" : "?", smt.empty() ? "not readable" : "");
  std::string governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  row(o, "governor", governor.empty() ? "?" : governor, governor.empty() ? "no cpufreq here (a VM, usually): frequency is the host's" : "");
  std::string no_turbo = first_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
  std::string boost = first_line("/sys/devices/system/cpu/cpufreq/boost");
  row(o, "turbo", !no_turbo.empty() ? (no_turbo == "1" ? "off" : "on") : !boost.empty() ? (boost == "1" ? "on" : "off") : "?",
      no_turbo.empty() && boost.empty() ? "not readable" : "");
  double steal = steal_percent(std::chrono::milliseconds(500));
  char steal_text[32];
  snprintf(steal_text, sizeof steal_text, "%.1f%%", steal);
  row(o, "steal", steal_text, "CPU time taken by the hypervisor over 0.5 s");
  if (cpus <= 2)
    meaning.push_back("only " + std::to_string(cpus) + " CPUs: the traffic generator, both daemons and softirq work share them; pin (cpus, load_cpus) and compare only within one run");
  if (steal > 1) meaning.push_back("the hypervisor steals CPU time: expect noisy samples; use more samples and read the spread");

  o << "\nproducts (" << products_dir << "):\n";
  for (const auto& name : list_products(products_dir)) {
    auto spec = load_product(products_dir, name);
    if (!spec) {
      row(o, name, "bad", spec.error().where_and_what());
      continue;
    }
    auto av = check_availability(spec.value());
    row(o, name, av.available ? "yes" : "no", av.available ? av.version + "; " + spec->cipher : av.reason);
  }
  o << "\nwhat this means for results:\n";
  if (meaning.empty()) meaning.push_back("nothing limits the comparison on this machine");
  for (const auto& m : meaning) o << "  - " << m << "\n";
  return o.str();
}

}  // namespace vpnlab
