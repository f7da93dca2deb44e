// Load from outside the lab: tasks that are runnable right now and belong neither to
// this process nor to a lab namespace. Before each sample the runner waits (bounded)
// for the machine to be idle and records what it found.
#pragma once
#include <cstdint>
#include <vector>

namespace vpnlab {

int runnable_outside(const std::vector<uint64_t>& lab_netns_inodes);

// Polls until nothing outside the lab is runnable or `timeout_ms` passes; returns the
// last count (0: idle). No event says "the machine is idle": a bounded probe loop.
int wait_outside_idle(const std::vector<uint64_t>& lab_netns_inodes, int timeout_ms);

}  // namespace vpnlab
