#include "lab/run/product_probe.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "lab/base/fs_util.h"
#include "lab/base/process.h"
#include "netns/capabilities.h"

namespace vpnlab {

std::string first_output_line(const std::vector<std::string>& argv) {
  // The pid in the name lets `vpnlab cleanup` remove the file if this process is killed
  // before it unlinks it (see kVersionProbePrefix).
  std::string tmpl = std::string(kVersionProbePrefix) + std::to_string(getpid()) + "-XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return "";
  close(fd);
  SpawnSpec s;
  s.argv = argv;
  s.stdout_path = tmpl;
  s.stderr_path = "/dev/null";  // warnings on stderr are not the version
  (void)run_command(s, 5);
  std::ifstream in(tmpl);
  std::string line;
  while (std::getline(in, line) && line.find_first_not_of(" \t") == std::string::npos) {
  }
  unlink(tmpl.c_str());
  unlink((tmpl + ".cmd").c_str());
  return line;
}

Availability check_availability(const ProductSpec& spec, const std::string& backend) {
  Availability a;
  std::string pkgs;
  for (const auto& p : spec.packages) pkgs += (pkgs.empty() ? "" : " ") + p;
  for (const auto& bin : spec.binaries) {
    if (find_program(bin).empty()) {
      a.reason = pkgs.empty() ? "'" + bin + "' is not installed and not in Debian: bring your own with --product " + spec.name + "@TAG=/path/to/" + bin
                              : "'" + bin + "' is not installed (apt-get install --no-install-recommends " + pkgs + ")";
      return a;
    }
  }
  // In guests the kernel features are the guest kernel's (images/ picks one that has
  // them); the bring-up there still refuses an interface of the wrong kind.
  if (!spec.requires_caps.empty() && backend != "vm") {
    if (geteuid() != 0) {
      a.reason = "needs kernel features (" + spec.requires_caps.front() + "): probing them needs root";
      return a;
    }
    for (const auto& c : probe_network_capabilities("vpnlab-probe-" + std::to_string(getpid())))
      if (!c.available && std::find(spec.requires_caps.begin(), spec.requires_caps.end(), c.name) != spec.requires_caps.end()) {
        a.reason = "this kernel lacks " + c.name + " (" + c.detail + ")";
        return a;
      }
  }
  a.available = true;
  a.version = spec.version_argv.empty() ? "-" : first_output_line(spec.version_argv);
  // A kernel product's version is the kernel it runs in: in guests, theirs, not this host's.
  if (backend == "vm" && spec.version_argv == std::vector<std::string>{"uname", "-r"})
    a.version = "the guests' kernel (environment.json: guests)";
  return a;
}

}  // namespace vpnlab
