// Libvirt domain XML for one lab guest, generated from plain data (pure: no syscalls),
// so it is golden-file tested. Direct kernel boot (no disk), the host's root and the run
// directory shared over 9p, one virtio-net per link on a bridge of the lab's VM-host
// namespace, a virtio-serial channel for the guest agent, vCPU and emulator pinning.
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

enum class Accel { kvm, tcg };
const char* accel_name(Accel a);

struct GuestShare {
  std::string source;  // host directory
  std::string tag;     // 9p mount tag the guest's init looks for
  bool readonly = true;
};

struct GuestNic {
  std::string bridge;  // in the VM-host namespace
  std::string tap;     // host-side tap name (<= 15 chars, not "vnet…": libvirt reserves it)
  std::string mac;     // the guest finds its interface by this address
  int mtu = 1500;
};

struct GuestSpec {
  std::string name;  // domain name, starts with the lab prefix
  Accel accel = Accel::tcg;
  int vcpus = 1;
  int memory_mib = 512;
  std::vector<int> vcpu_pins;  // host CPU of vCPU i (empty: not pinned)
  std::vector<int> emulator_pins;
  std::string kernel, initrd, cmdline;
  std::string emulator = "/usr/bin/qemu-system-x86_64";
  std::string machine = "pc";  // libvirt rejects microvm (no PCI)
  std::vector<GuestShare> shares;
  std::vector<GuestNic> nics;
  std::string agent_socket;  // unix socket QEMU listens on for the agent channel
  std::string console_log;   // the guest's serial console, for error reports
};

std::string domain_xml(const GuestSpec& g);

// A locally administered MAC that encodes node and link index: 52:54:00:6c:NN:LL.
std::string lab_mac(int node_index, int link_index);

}  // namespace vpnlab
