#include "lab/kernel/rps.h"

#include <filesystem>
#include <fstream>

#include "lab/kernel/namespace.h"

namespace vpnlab {

std::string cpu_mask_hex(const std::vector<int>& cpus) {
  // Comma-separated 32-bit groups, most significant first, as the kernel prints masks.
  int top = 0;
  for (int c : cpus) top = std::max(top, c);
  std::vector<uint32_t> words(static_cast<size_t>(top / 32 + 1), 0);
  for (int c : cpus) words[static_cast<size_t>(c / 32)] |= 1u << (c % 32);
  std::string out;
  char buf[16];
  for (size_t i = words.size(); i-- > 0;) {
    snprintf(buf, sizeof buf, i + 1 == words.size() ? "%x" : "%08x", words[i]);
    out += (out.empty() ? "" : ",") + std::string(buf);
  }
  return out;
}

Status write_rps_masks(const std::vector<std::string>& ifnames, const std::vector<int>& cpus) {
  if (cpus.empty()) return ok_status();
  std::string mask = cpu_mask_hex(cpus);
  std::string failure;
  for (const auto& ifname : ifnames) {
    std::error_code ec;
    int queues = 0;
    for (const auto& q : std::filesystem::directory_iterator("/sys/class/net/" + ifname + "/queues", ec)) {
      if (q.path().filename().string().rfind("rx-", 0) != 0) continue;
      std::ofstream out(q.path() / "rps_cpus");
      out << mask << "\n";
      out.flush();
      if (!out && failure.empty())
        failure = "interface '" + ifname + "': cannot write " + (q.path() / "rps_cpus").string();
      ++queues;
    }
    if (queues == 0 && failure.empty())
      failure = "interface '" + ifname + "': no receive queues under /sys/class/net/" + ifname;
  }
  if (!failure.empty())
    return make_error("receive packet steering: " + failure, "the node's /sys must be its own namespace's sysfs");
  return ok_status();
}

Status set_rps(int netns_fd, int mntns_fd, const std::vector<std::string>& ifnames, const std::vector<int>& cpus) {
  Status written = ok_status();
  auto entered = run_in_node(netns_fd, mntns_fd, [&] { written = write_rps_masks(ifnames, cpus); });
  if (!entered) return entered;
  return written;
}

}  // namespace vpnlab
