// Receive packet steering: a node's received packets are processed (softirq) on the
// node's own CPUs instead of wherever the sender ran (veth hands packets over on the
// sending CPU). Written to the node's own /sys, as each namespace sees its devices.
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

// "3" for CPUs {0, 1}: the hex mask /sys/class/net/IF/queues/rx-N/rps_cpus takes.
std::string cpu_mask_hex(const std::vector<int>& cpus);

// Sets rps_cpus of every receive queue of each interface, in this process's namespaces (a
// guest's agent, where the whole guest is the node).
Status write_rps_masks(const std::vector<std::string>& ifnames, const std::vector<int>& cpus);
// The same inside a node's network and mount namespaces (its own sysfs).
Status set_rps(int netns_fd, int mntns_fd, const std::vector<std::string>& ifnames, const std::vector<int>& cpus);

}  // namespace vpnlab
