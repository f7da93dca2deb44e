// The host agent's chores that need no state of a built part: facts about the host, files
// of a controller that does not share them, products' presence and versions, CPU times,
// and the cleanup of what a killed agent left.
#include "lab/backends/hosts/host_chores.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "lab/agent/json_lines.h"
#include "lab/backends/hosts/cpu_wire.h"
#include "lab/base/cpu_stat.h"
#include "lab/base/encoding.h"
#include "lab/base/fs_util.h"
#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"
#include "lab/base/pidfd.h"
#include "lab/base/process.h"
#include "lab/kernel/namespace.h"
#include "lab/kernel/netlink.h"
#include "lab/kernel/offloads.h"

namespace vpnlab {

using nlohmann::json;

std::string nic_ledger_path(const Plan& part) {
  return std::string(kNicLedgerDir) + "/" + part.ns_prefix +
         (part.nics.empty() ? std::string("none") : part.nics.front().host) + ".json";
}

// What environment.json records of a host's NIC: driver, link speed, offloads.
json host_nic_facts(const std::string& nic) {
  std::error_code ec;
  auto driver = std::filesystem::read_symlink("/sys/class/net/" + nic + "/device/driver", ec);
  std::string speed = read_file_text("/sys/class/net/" + nic + "/speed");
  while (!speed.empty() && speed.back() == '\n') speed.pop_back();
  json facts{{"driver", ec ? std::string("virtual (no device)") : driver.filename().string()},
             {"speed_mbps", speed.empty() ? std::string("unknown") : speed}};
  UniqueFd self(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
  if (auto o = read_offloads(self.get(), nic)) facts["offloads"] = o.value();
  return facts;
}

// Files of a controller whose filesystem this host does not share (lab/backends/hosts/file_mirror.h).
json host_peek(const json& req) {
  std::string text = read_file_text(req.at("path").get<std::string>());
  return {{"ok", true}, {"text", text.substr(0, 4096)}};
}
json host_put(const json& req) {
  const std::string path = req.at("path").get<std::string>();
  auto data = from_base64(req.at("data").get<std::string>());
  if (!data) return agent_failure(make_error(path + ": the content is not base64"));
  const mode_t mode = whole_number_at<int>(req, "mode") & 07777;
  if (auto s = make_dirs(path.substr(0, path.rfind('/')), 0750); !s) return agent_failure(s.error());
  return agent_done(write_file(path, *data, mode));
}
json host_get(const json& req) {
  const std::string path = req.at("path").get<std::string>();
  if (::access(path.c_str(), R_OK) != 0) return {{"ok", true}, {"exists", false}};
  std::string data = read_file_text(path);
  return {{"ok", true},
          {"exists", true},
          {"data", to_base64(reinterpret_cast<const unsigned char*>(data.data()), data.size())}};
}

// What a killed agent left of one topology's lab on this host: NICs in its namespaces go
// back under their own names, then the namespaces go with whatever runs in them. Only
// the namespaces of this host's nodes and links ("vpnlab-LAB-<any run>-n-NODE"): another
// lab's, or another host's where hosts share a machine, are not touched.
json host_cleanup(const json& req) {
  const bool dry_run = req.at("dry_run").get<bool>();
  const std::string host = req.at("host").get<std::string>();
  const std::string lab_prefix = std::string(kLabPrefix) + req.at("lab").get<std::string>() + "-";
  const auto suffixes = req.at("suffixes").get<std::vector<std::string>>();
  std::vector<std::string> names;
  for (const auto& n : list_namespaces(lab_prefix))
    for (const auto& s : suffixes)
      if (n.size() > s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0 &&
          n.find('-', lab_prefix.size()) == n.size() - s.size())
        names.push_back(n);
  json actions = json::array();
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(kNicLedgerDir, ec)) {
    json ledger = parse_json_bounded(read_file_text(e.path().string()));
    if (!ledger.is_array()) continue;
    bool all_mine = true;
    for (const auto& n : ledger) {
      const std::string ns = n.value("ns", ""), ifname = n.value("ifname", ""), nic = n.value("nic", "");
      if (n.value("host", "") != host || std::find(names.begin(), names.end(), ns) == names.end()) {
        all_mine = false;
        continue;
      }
      if (dry_run) {
        actions.push_back("would return nic " + nic + " (" + ifname + " in " + ns + ")");
        continue;
      }
      auto netns = open_namespace(ns);
      UniqueFd home(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
      if (!netns || !move_link(netns->sock.get(), ifname, home.get(), nic)) continue;
      // As it was before the lab took it: its MTU and up/down (a ledger of an older agent
      // has neither, and the NIC stays as the kernel leaves it).
      std::string how;
      if (n.contains("mtu") && n.contains("up")) {
        auto sock = open_route_socket();
        const int mtu = whole_number_or(n, "mtu", 1500);
        const bool up = n.value("up", false);
        if (sock && set_link(sock->get(), nic, mtu, up))
          how = " (MTU " + std::to_string(mtu) + ", " + (up ? "up" : "down") + ")";
        else
          how = " (its MTU and state could not be restored)";
      }
      actions.push_back("returned nic " + nic + how);
    }
    if (!dry_run && all_mine) std::filesystem::remove(e.path(), ec);
  }
  std::vector<uint64_t> inodes;
  for (const auto& n : names)
    if (auto ns = open_namespace(n)) inodes.push_back(ns->inode);
  for (const auto& p : dry_run ? processes_in_namespaces(inodes) : end_processes_in_namespaces(inodes, 2000))
    actions.push_back((dry_run ? "would end process " : "ended process ") + std::to_string(p.pid) + " (" + p.comm +
                      ")");
  for (const auto& n : names) {
    if (dry_run)
      actions.push_back("would remove namespace " + n);
    else if (remove_namespace_file(n))
      actions.push_back("removed namespace " + n);
  }
  if (!dry_run)
    if (auto s = wait_namespaces_released(inodes, 10); !s) return agent_failure(s.error());
  return {{"ok", true}, {"actions", actions}};
}

// The run's products here: a program missing, or the version they report.
json host_products(const json& req) {
  json out = json::object();
  for (const auto& p : req.at("products")) {
    json one = json::object();
    for (const auto& bin : p.at("binaries"))
      if (find_program(bin.get<std::string>()).empty()) {
        one["missing"] = bin;
        break;
      }
    const auto version = p.at("version").get<std::vector<std::string>>();
    if (!one.contains("missing")) one["version"] = version.empty() ? "-" : first_output_line(version);
    out[p.at("name").get<std::string>()] = one;
  }
  return {{"ok", true}, {"products", out}};
}

json host_cpu() {
  json per_cpu = json::array();
  for (const auto& t : read_cpu_times_per_cpu()) per_cpu.push_back(cpu_json(t));
  return {{"ok", true}, {"total", cpu_json(read_cpu_times())}, {"per_cpu", per_cpu}};
}

}  // namespace vpnlab
