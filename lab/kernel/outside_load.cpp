#include "lab/kernel/outside_load.h"

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "lab/base/fs_util.h"
#include "lab/base/pidfd.h"

namespace vpnlab {

namespace {

bool task_runnable(const std::string& task_dir) {
  std::istringstream in(read_file_text(task_dir + "/stat"));
  std::string line;
  std::getline(in, line);
  auto close = line.rfind(')');  // comm may hold spaces and parentheses
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'R';
}

}  // namespace

int runnable_outside(const std::vector<uint64_t>& lab_netns_inodes) {
  std::set<uint64_t> lab(lab_netns_inodes.begin(), lab_netns_inodes.end());
  std::string self = std::to_string(getpid());
  int count = 0;
  DIR* proc = opendir("/proc");
  if (!proc) return 0;
  while (dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9' || self == e->d_name) continue;
    std::string base = std::string("/proc/") + e->d_name + "/task";
    DIR* tasks = opendir(base.c_str());
    if (!tasks) continue;
    while (dirent* t = readdir(tasks)) {
      if (t->d_name[0] < '0' || t->d_name[0] > '9') continue;
      std::string dir = base + "/" + t->d_name;
      if (task_runnable(dir) && !lab.count(net_inode(dir + "/ns/net"))) ++count;
    }
    closedir(tasks);
  }
  closedir(proc);
  return count;
}

int wait_outside_idle(const std::vector<uint64_t>& lab_netns_inodes, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int n = runnable_outside(lab_netns_inodes);
    if (n == 0 || std::chrono::steady_clock::now() >= deadline) return n;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace vpnlab
