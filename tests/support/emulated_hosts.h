// Emulated hosts for the hosts backend's tests (and for trying it by hand, see
// tests/support/emulated_hosts_main.cpp): each "host" is a network namespace running
// Debian's sshd on a management veth to a "controller" namespace, where vpnlab runs; a
// veth pair between the hosts stands for the wire between two machines, each end being
// that host's `nic` ("wire0"). Keys (client, host keys, known_hosts) are generated in `dir`.
// The namespaces are anonymous (no /run/netns name: `vpnlab cleanup` and a run's debris
// check never see them) and the sshds die with the thread that started them.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lab/base/process.h"
#include "lab/base/result.h"
#include "lab/kernel/namespace.h"

namespace vpnlab::testing {

class EmulatedHosts {
 public:
  // `hidden`: a directory the hosts must not see as this machine does (a run's output
  // directory): each host's sshd, and all it starts, runs in a mount namespace of its own
  // with an empty tmpfs there, as on a machine of its own ("" = the hosts share every file).
  static Result<std::unique_ptr<EmulatedHosts>> start(const std::string& dir, int count = 2,
                                                      const std::string& hidden = "");
  ~EmulatedHosts();

  int controller_netns_fd() const { return namespaces_[0].fd.get(); }
  int host_netns_fd(int i) const { return namespaces_[1 + i].fd.get(); }
  std::string destination(int i) const;  // root@10.231.<i+1>.2
  std::vector<std::string> ssh_options() const;
  // The hosts' keys, as a known-hosts file (the topology's known_hosts).
  std::string known_hosts() const;
  static constexpr const char* kNic = "wire0";
  // [[host]] tables h1..hN for a topology, with this fixture's ssh options; `agent` as the
  // hosts' agent path ("" = vpnlab's default).
  std::string hosts_toml(const std::string& agent = "") const;
  // Stops host i's sshd (an unreachable host).
  void stop_sshd(int i);

 private:
  EmulatedHosts() = default;
  std::string dir_;
  std::vector<Netns> namespaces_;   // controller, h1, h2, ...
  std::vector<UniqueFd> mount_ns_;  // per host, with `hidden`
  std::vector<std::unique_ptr<Child>> sshd_;
};

}  // namespace vpnlab::testing
