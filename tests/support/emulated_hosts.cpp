#include "tests/support/emulated_hosts.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <thread>

#include "lab/base/fs_util.h"
#include "lab/kernel/netlink.h"
#include "lab/kernel/probes.h"

namespace vpnlab::testing {

namespace {

std::string mgmt_addr(int i, int end) { return "10.231." + std::to_string(i + 1) + "." + std::to_string(end); }

// Runs a program to completion (ssh-keygen); its output goes to `log`.
Status run_tool(const std::vector<std::string>& argv, const std::string& log) {
  SpawnSpec spec;
  spec.argv = argv;
  spec.stdout_path = log;
  auto c = Child::spawn(spec);
  if (!c) return c.error();
  if (!(*c)->wait_exit(20000)) return make_error(argv[0] + " did not finish", "see " + log);
  if ((*c)->exit_status() != 0) return make_error(argv[0] + " failed: " + read_file_text(log));
  return ok_status();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::string EmulatedHosts::destination(int i) const { return "root@" + mgmt_addr(i, 2); }

std::vector<std::string> EmulatedHosts::ssh_options() const {
  // The test's key only; host keys come from known_hosts() (vpnlab runs ssh with -F none).
  return {"-i", dir_ + "/id_ed25519", "-o", "IdentitiesOnly=yes"};
}

std::string EmulatedHosts::known_hosts() const { return dir_ + "/known_hosts"; }

std::string EmulatedHosts::hosts_toml(const std::string& agent) const {
  std::string out;
  for (size_t i = 0; i + 1 < namespaces_.size(); ++i) {
    out += "[[host]]\nname = \"h" + std::to_string(i + 1) + "\"\nssh = \"" + destination(static_cast<int>(i)) +
           "\"\nnic = \"" + kNic + "\"\n";
    out += "ssh_options = [";
    for (const auto& o : ssh_options()) out += "\"" + o + "\", ";
    out += "]\nknown_hosts = \"" + known_hosts() + "\"\n";
    if (!agent.empty()) out += "agent = \"" + agent + "\"\n";
    out += "\n";
  }
  return out;
}

// A mount namespace in which `hidden` is an empty tmpfs; mounts made in it (a tmpfs, the
// agent's /run/netns entries) do not propagate back to this one.
Result<UniqueFd> mount_ns_hiding(const std::string& hidden) {
  Result<UniqueFd> out = make_error("no mount namespace made");
  std::thread([&] {
    if (::unshare(CLONE_NEWNS) != 0) {
      out = make_error("unshare(CLONE_NEWNS): " + errno_text(errno));
      return;
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) {
      out = make_error("mount --make-rslave /: " + errno_text(errno));
      return;
    }
    if (::mount("tmpfs", hidden.c_str(), "tmpfs", 0, "mode=0755") != 0) {
      out = make_error("mount tmpfs on " + hidden + ": " + errno_text(errno));
      return;
    }
    UniqueFd fd(::open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
      out = make_error("open mount namespace: " + errno_text(errno));
      return;
    }
    out = std::move(fd);
  }).join();
  return out;
}

Result<std::unique_ptr<EmulatedHosts>> EmulatedHosts::start(const std::string& dir, int count,
                                                            const std::string& hidden) {
  std::unique_ptr<EmulatedHosts> eh(new EmulatedHosts());
  eh->dir_ = dir;
  std::vector<NetnsRequest> requests;
  for (int i = 0; i <= count; ++i)
    requests.push_back({i == 0 ? "controller" : "host" + std::to_string(i), {}, /*anonymous=*/true});
  auto made = create_namespaces(requests);
  if (!made) return made.error();
  eh->namespaces_ = std::move(*made);
  Netns& ctl = eh->namespaces_[0];
  for (int i = 0; i < count; ++i) {
    Netns& h = eh->namespaces_[1 + i];
    const std::string mine = "m" + std::to_string(i + 1);
    if (auto s = create_veth(ctl.sock.get(), mine, 0, h.fd.get(), "mgmt", 1500); !s) return s.error();
    if (auto s = set_link(h.sock.get(), "mgmt", 0, true); !s) return s.error();
    if (auto s = add_address(ctl.sock.get(), mine, HostAddr{*parse_ipv4(mgmt_addr(i, 1)), 30}); !s) return s.error();
    if (auto s = add_address(h.sock.get(), "mgmt", HostAddr{*parse_ipv4(mgmt_addr(i, 2)), 30}); !s) return s.error();
  }
  // The wire between host 1 and host 2, without addresses: each end is its host's nic.
  if (count >= 2)
    if (auto s = create_veth(eh->namespaces_[1].sock.get(), kNic, 0, eh->namespaces_[2].fd.get(), kNic, 1500); !s)
      return s.error();

  const std::string log = dir + "/keygen.log";
  if (auto s = run_tool({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vpnlab-test", "-f", dir + "/id_ed25519"},
                        log);
      !s)
    return s.error();
  std::string known;
  for (int i = 0; i < count; ++i) {
    std::string key = dir + "/host" + std::to_string(i + 1) + "_key";
    if (auto s = run_tool({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "host", "-f", key}, log); !s)
      return s.error();
    known += mgmt_addr(i, 2) + " " + trimmed(read_file_text(key + ".pub")) + "\n";
  }
  if (auto s = write_file(dir + "/known_hosts", known, 0600); !s) return s.error();
  if (auto s = write_file(dir + "/authorized_keys", read_file_text(dir + "/id_ed25519.pub"), 0600); !s)
    return s.error();
  // sshd's privilege separation directory (the package's service would make it).
  ::mkdir("/run/sshd", 0755);
  for (int i = 0; i < count; ++i) {
    std::string n = std::to_string(i + 1);
    std::string config = "ListenAddress " + mgmt_addr(i, 2) + "\nHostKey " + dir + "/host" + n +
                         "_key\nAuthorizedKeysFile " + dir +
                         "/authorized_keys\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                         "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPidFile none\nLogLevel VERBOSE\n";
    if (auto s = write_file(dir + "/sshd" + n + ".conf", config, 0600); !s) return s.error();
    SpawnSpec spec;
    spec.argv = {"/usr/sbin/sshd", "-D", "-e", "-f", dir + "/sshd" + n + ".conf"};
    spec.netns_fd = eh->namespaces_[1 + i].fd.get();
    if (!hidden.empty()) {
      ::mkdir(hidden.c_str(), 0755);
      auto mnt = mount_ns_hiding(hidden);
      if (!mnt) return mnt.error();
      eh->mount_ns_.push_back(std::move(*mnt));
      spec.mntns_fd = eh->mount_ns_.back().get();
    }
    spec.stdout_path = dir + "/sshd" + n + ".log";
    spec.die_with_parent = true;
    auto c = Child::spawn(spec);
    if (!c) return c.error();
    eh->sshd_.push_back(std::move(*c));
    if (auto s = wait_tcp_listening(eh->namespaces_[1 + i].fd.get(), 22, 10, -1); !s)
      return make_error("sshd of emulated host " + n + " is not listening: " + read_file_text(spec.stdout_path));
  }
  return eh;
}

void EmulatedHosts::stop_sshd(int i) {
  if (i < static_cast<int>(sshd_.size()) && sshd_[i]) sshd_[i]->stop(1000);
}

EmulatedHosts::~EmulatedHosts() {
  for (auto& s : sshd_)
    if (s) s->stop(1000);
}

}  // namespace vpnlab::testing
