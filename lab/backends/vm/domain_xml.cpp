#include "lab/backends/vm/domain_xml.h"

#include <cstdio>
#include <sstream>

#include "lab/base/xml_escape.h"

namespace vpnlab {

const char* accel_name(Accel a) { return a == Accel::kvm ? "kvm" : "tcg"; }

static std::string cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size(); ++i) s += (i ? "," : "") + std::to_string(cpus[i]);
  return s;
}

std::string lab_mac(int node_index, int link_index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "52:54:00:6c:%02x:%02x", node_index & 0xff, link_index & 0xff);
  return buf;
}

std::string domain_xml(const GuestSpec& g) {
  std::ostringstream x;
  // type='qemu' is TCG; 'kvm' needs /dev/kvm that really runs guests (probed by the caller).
  x << "<domain type='" << (g.accel == Accel::kvm ? "kvm" : "qemu") << "'>\n";
  x << "  <name>" << xml_escape(g.name) << "</name>\n";
  x << "  <memory unit='MiB'>" << g.memory_mib << "</memory>\n";
  x << "  <vcpu placement='static'>" << g.vcpus << "</vcpu>\n";
  if (!g.vcpu_pins.empty() || !g.emulator_pins.empty()) {
    x << "  <cputune>\n";
    for (size_t i = 0; i < g.vcpu_pins.size(); ++i)
      x << "    <vcpupin vcpu='" << i << "' cpuset='" << g.vcpu_pins[i] << "'/>\n";
    if (!g.emulator_pins.empty()) x << "    <emulatorpin cpuset='" << cpu_list(g.emulator_pins) << "'/>\n";
    x << "  </cputune>\n";
  }
  x << "  <os>\n";
  x << "    <type arch='x86_64' machine='" << xml_escape(g.machine) << "'>hvm</type>\n";
  x << "    <kernel>" << xml_escape(g.kernel) << "</kernel>\n";
  x << "    <initrd>" << xml_escape(g.initrd) << "</initrd>\n";
  x << "    <cmdline>" << xml_escape(g.cmdline) << "</cmdline>\n";
  x << "  </os>\n";
  x << "  <features><acpi/></features>\n";
  // Under TCG, QEMU's default CPU model: -cpu max was ~3x slower here (and has no AES-NI
  // either way). Under KVM the host's CPU, so ciphers see the real instruction set.
  if (g.accel == Accel::kvm) x << "  <cpu mode='host-passthrough'/>\n";
  x << "  <clock offset='utc'/>\n";
  x << "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n  <on_crash>destroy</on_crash>\n";
  x << "  <devices>\n";
  x << "    <emulator>" << xml_escape(g.emulator) << "</emulator>\n";
  for (const auto& s : g.shares) {
    x << "    <filesystem type='mount' accessmode='passthrough' multidevs='remap'>\n";
    x << "      <driver type='path'/>\n";
    x << "      <source dir='" << xml_escape(s.source) << "'/>\n";
    x << "      <target dir='" << xml_escape(s.tag) << "'/>\n";
    if (s.readonly) x << "      <readonly/>\n";
    x << "    </filesystem>\n";
  }
  for (const auto& n : g.nics) {
    x << "    <interface type='bridge'>\n";
    x << "      <source bridge='" << xml_escape(n.bridge) << "'/>\n";
    x << "      <target dev='" << xml_escape(n.tap) << "'/>\n";
    x << "      <mac address='" << xml_escape(n.mac) << "'/>\n";
    x << "      <model type='virtio'/>\n";
    x << "      <mtu size='" << n.mtu << "'/>\n";
    x << "    </interface>\n";
  }
  x << "    <serial type='file'>\n      <source path='" << xml_escape(g.console_log) << "'/>\n"
    << "      <target port='0'/>\n    </serial>\n";
  x << "    <channel type='unix'>\n      <source mode='bind' path='" << xml_escape(g.agent_socket) << "'/>\n"
    << "      <target type='virtio' name='vpnlab.agent'/>\n    </channel>\n";
  // Entropy from the host: without it a guest's RNG initializes late (few interrupts under
  // TCG), and kernel WireGuard did not complete a handshake until it had.
  x << "    <rng model='virtio'>\n      <backend model='random'>/dev/urandom</backend>\n    </rng>\n";
  x << "    <memballoon model='none'/>\n";
  x << "  </devices>\n</domain>\n";
  return x.str();
}

}  // namespace vpnlab
