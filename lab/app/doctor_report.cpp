#include "lab/app/doctor_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "lab/app/run_request.h"
#include "lab/backends/vm/accel.h"
#include "lab/backends/vm/image.h"
#include "lab/base/cpu_stat.h"
#include "lab/base/fs_util.h"
#include "lab/kernel/capabilities.h"
#include "lab/model/product_spec.h"
#include "lab/run/product_probe.h"

namespace vpnlab {

namespace {

std::string first_line(const std::string& path) {
  std::istringstream in(read_file_text(path));
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

// The report as it is gathered: each section's rows (name, state, detail) for the text,
// the same values for --json.
struct Report {
  std::ostringstream text;
  nlohmann::json json = nlohmann::json::object();
  void section(const std::string& key, const std::string& title) {
    text << "\n" << title << ":\n";
    json[key] = nlohmann::json::array();
    current = key;
  }
  void row(const std::string& name, const std::string& state, const std::string& detail) {
    std::string buf = fmt::format("  {:<22} {:<5} {}\n", name, state, detail);
    text << buf;
    json[current].push_back({{"name", name}, {"state", state}, {"detail", detail}});
  }
  std::string current;
};

// What the VM backend decided about KVM when it last probed (this host boot), or that it
// has not probed yet: doctor boots no guest itself.
void boot_probe_row(Report& r, bool kvm_device, std::vector<std::string>* meaning) {
  auto cached = cached_accel(image_cache_root());
  if (!cached) {
    r.row("kvm-boot", "?",
          kvm_device ? "not probed this boot: the first vm run boots a guest with KVM and falls back to TCG if it does "
                       "not come up"
                     : "no /dev/kvm: vm runs use TCG");
    return;
  }
  const bool kvm = cached->choice.accel == Accel::kvm;
  r.row("kvm-boot", kvm ? "kvm" : "tcg",
        (kvm ? "guests boot with KVM" : "KVM guests do not boot here -> TCG") + std::string(": ") +
            cached->choice.reason + " (probed this boot, guest kernel " + cached->kernel + ")");
  if (!kvm && kvm_device)
    meaning->push_back(
        "/dev/kvm exists but guests do not boot with it: vm runs use TCG (slower; never compared with KVM runs)");
}

// The CPU, its features and what the hypervisor takes, with what they mean for results.
void machine_rows(Report& r, std::vector<std::string>* meaning) {
  r.section("machine", "machine");
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  r.row("cpus", std::to_string(cpus), cpu_field("model name"));
  bool aes = (" " + cpu_field("flags") + " ").find(" aes ") != std::string::npos;
  r.row("aes-ni", aes ? "yes" : "no",
        aes ? "AES-GCM/CBC products get hardware AES" : "AES is done in software: ChaCha/Salsa products are favoured");
  std::string smt = first_line("/sys/devices/system/cpu/smt/active");
  r.row("smt", smt == "1" ? "on" : smt == "0" ? "off" : "?", smt.empty() ? "not readable" : "");
  std::string governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  r.row("governor", governor.empty() ? "?" : governor,
        governor.empty() ? "no cpufreq here (a VM, usually): frequency is the host's" : "");
  std::string no_turbo = first_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
  std::string boost = first_line("/sys/devices/system/cpu/cpufreq/boost");
  r.row("turbo",
        !no_turbo.empty() ? (no_turbo == "1" ? "off" : "on")
        : !boost.empty()  ? (boost == "1" ? "on" : "off")
                          : "?",
        no_turbo.empty() && boost.empty() ? "not readable" : "");
  double steal = steal_percent(std::chrono::milliseconds(500));
  std::string steal_text = fmt::format("{:.1f}%", steal);
  r.row("steal", steal_text, "CPU time taken by the hypervisor over 0.5 s");
  if (cpus <= 2)
    meaning->push_back("only " + std::to_string(cpus) +
                       " CPUs: the traffic generator, both daemons and softirq work share them; pin (cpus, load_cpus) "
                       "and compare only within one run");
  if (steal > 1)
    meaning->push_back("the hypervisor steals CPU time: expect noisy samples; use more samples and read the spread");
}

// Each product's availability here; kernel-only ones this kernel lacks a feature for run in guests only.
void product_rows(Report& r, const std::string& products_path, const std::vector<std::string>& missing_caps,
                  std::vector<std::string>* meaning) {
  r.section("products", "products (" + products_path + ")");
  r.json["products_path"] = products_path;
  std::vector<std::string> guest_only;
  for (const auto& name : list_products_and_builds(products_path)) {
    auto spec = load_product(products_path, name);
    if (!spec) {
      r.row(name, "bad", spec.error().where_and_what());
      continue;
    }
    auto av = availability_for(spec.value(), "netns");
    r.row(name, av.available ? "yes" : "no",
          av.available ? av.version + "; " + spec->cipher + "; " + spec->origin : av.reason);
    for (const auto& cap : spec->requires_caps)
      if (std::find(missing_caps.begin(), missing_caps.end(), cap) != missing_caps.end()) {
        guest_only.push_back(name);
        break;
      }
  }
  if (!guest_only.empty()) {
    std::string names;
    for (const auto& n : guest_only) names += (names.empty() ? "" : ", ") + n;
    meaning->push_back(
        "kernel-only products that run only in guests here (backend = \"vm\", the guests' kernel has the feature): " +
        names);
  }
  r.json["guest_only_products"] = guest_only;
}

}  // namespace

DoctorReport doctor_report(const std::string& products_path) {
  Report r;
  std::vector<std::string> meaning;
  const std::string kernel = first_line("/proc/sys/kernel/osrelease");
  r.text << "kernel " << kernel << "\n";
  r.json["kernel"] = kernel;
  r.section("network_features", "network features (each made for real in a scratch namespace)");
  auto caps = probe_network_capabilities("vpnlab-doctor-" + std::to_string(getpid()));
  bool wireguard = false, esp = false, netem = false, tbf = false;
  std::vector<std::string> missing_caps;
  for (const auto& c : caps) {
    r.row(c.name, c.available ? "yes" : "no", c.detail);
    if (!c.available) missing_caps.push_back(c.name);
    if (c.name == "wireguard-link") wireguard = c.available;
    if (c.name == "esp-state") esp = c.available;
    if (c.name == "netem-qdisc") netem = c.available;
    if (c.name == "tbf-qdisc") tbf = c.available;
  }
  if (!wireguard)
    meaning.push_back(
        "no kernel WireGuard: wireguard-kernel can only run in guests (VM backend); never substituted by a userspace "
        "one");
  if (!esp) meaning.push_back("no kernel ESP: IPsec runs as strongswan-libipsec (userspace ESP, MTU at most 1400)");
  if (!netem) meaning.push_back("no netem: links cannot get delay, jitter or loss here");
  if (!tbf) meaning.push_back("no TBF: links cannot be rate-limited here");

  Capability kvm = probe_kvm();
  r.section("virtualisation", "virtualisation");
  r.row("kvm", kvm.available ? "yes" : "no", kvm.detail);
  boot_probe_row(r, kvm.available, &meaning);
  if (!kvm.available)
    meaning.push_back(
        "no usable /dev/kvm: guests would run under TCG, several times slower; TCG and KVM results are never compared");

  machine_rows(r, &meaning);

  product_rows(r, products_path, missing_caps, &meaning);
  r.text << "\nwhat this means for results:\n";
  if (meaning.empty()) meaning.push_back("nothing limits the comparison on this machine");
  for (const auto& m : meaning) r.text << "  - " << m << "\n";
  r.json["meaning"] = meaning;
  r.json["schema"] = 1;
  return DoctorReport{r.text.str(), r.json};
}

}  // namespace vpnlab
