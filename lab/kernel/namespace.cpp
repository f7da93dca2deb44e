#include "lab/kernel/namespace.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

#include "lab/base/fault.h"
#include "lab/base/fs_util.h"
#include "lab/base/pidfd.h"
#include "lab/kernel/sysctl.h"

namespace vpnlab {

namespace {

std::string ns_path(const std::string& name) { return std::string(kNetnsDir) + "/" + name; }

// Like iproute2: make /run/netns a shared mount point of its own, so that unmounting a
// namespace file also unmounts its copies in mount namespaces created since.
Status prepare_netns_dir() {
  if (mkdir(kNetnsDir, 0755) < 0 && errno != EEXIST)
    return make_error(std::string("cannot create ") + kNetnsDir + ": " + errno_text(errno), "run vpnlab as root");
  if (mount("", kNetnsDir, "none", MS_SHARED | MS_REC, nullptr) == 0) return ok_status();
  if (errno != EINVAL)
    return make_error(std::string("cannot make ") + kNetnsDir + " shared: " + errno_text(errno), "run vpnlab as root");
  // Not a mount point yet: bind it onto itself first.
  if (mount(kNetnsDir, kNetnsDir, "none", MS_BIND | MS_REC, nullptr) < 0)
    return make_error(std::string("cannot bind-mount ") + kNetnsDir + ": " + errno_text(errno), "run vpnlab as root");
  if (mount("", kNetnsDir, "none", MS_SHARED | MS_REC, nullptr) < 0)
    return make_error(std::string("cannot make ") + kNetnsDir + " shared: " + errno_text(errno));
  return ok_status();
}

// Runs on the dedicated thread: each unshare() moves this thread into a fresh namespace.
Result<Netns> create_one(const NetnsRequest& req) {
  std::string path = req.anonymous ? "/proc/thread-self/ns/net" : ns_path(req.name);
  if (!req.anonymous) {
    UniqueFd file(open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444));
    if (!file.valid())
      return make_error(
          "namespace '" + req.name + "': cannot create " + path + ": " + errno_text(errno),
          errno == EEXIST ? "a namespace of that name exists: run 'vpnlab cleanup'" : "run vpnlab as root");
  }
  fault_point("netns-create");
  auto fail = [&](const std::string& what) {
    Error e = make_error("namespace '" + req.name + "': " + what + ": " + errno_text(errno), "run vpnlab as root");
    if (!req.anonymous) (void)remove_namespace_file(req.name);
    return e;
  };
  if (unshare(CLONE_NEWNET) < 0) return fail("unshare(CLONE_NEWNET)");
  if (!req.anonymous && mount("/proc/thread-self/ns/net", path.c_str(), "none", MS_BIND, nullptr) < 0)
    return fail("bind mount");
  Netns ns;
  ns.name = req.name;
  ns.fd = UniqueFd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!ns.fd.valid()) return fail("open");
  ns.inode = inode_of(ns.fd.get());
  auto sock = open_route_socket();
  if (!sock) {
    (void)remove_namespace_file(req.name);
    return with_context(sock.error(), "namespace '" + req.name + "'");
  }
  ns.sock = std::move(sock.value());
  auto set = apply_sysctls(req.sysctls);
  if (!set) {
    (void)remove_namespace_file(req.name);
    return with_context(set.error(), "namespace '" + req.name + "'");
  }
  ns.sysctls = std::move(set.value());
  // Loopback up: many daemons bind 127.0.0.1 for control sockets.
  if (auto s = set_link(ns.sock.get(), "lo", 0, true); !s) {
    (void)remove_namespace_file(req.name);
    return with_context(s.error(), "namespace '" + req.name + "'");
  }
  return ns;
}

}  // namespace

uint64_t inode_of(int fd) {
  struct stat st {};
  if (fstat(fd, &st) < 0) return 0;
  return st.st_ino;
}

Result<std::vector<Netns>> create_namespaces(const std::vector<NetnsRequest>& requests) {
  bool pinned = std::any_of(requests.begin(), requests.end(), [](const NetnsRequest& r) { return !r.anonymous; });
  if (pinned)
    if (auto s = prepare_netns_dir(); !s) return s.error();
  // Creating a namespace is mostly kernel work that can overlap with another creation, so
  // requests are split over up to two dedicated threads (each unshare() moves its thread).
  const size_t workers = requests.size() >= 8 ? 2 : 1;
  std::vector<Result<Netns>> made;
  made.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) made.emplace_back(make_error("not created"));
  auto work = [&](size_t first) {
    for (size_t i = first; i < requests.size(); i += workers) {
      made[i] = create_one(requests[i]);
      if (!made[i]) return;
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w) threads.emplace_back(work, w);
  for (auto& t : threads) t.join();
  std::vector<Netns> out;
  std::optional<Error> failure;
  for (size_t i = 0; i < made.size(); ++i) {
    if (made[i])
      out.push_back(std::move(made[i].value()));
    else if (!failure && made[i].error().message != "not created")
      failure = made[i].error();
  }
  if (failure) {
    for (auto& m : out) (void)remove_namespace_file(m.name);
    return *failure;
  }
  return out;
}

Status remove_namespace_file(const std::string& name) {
  std::string path = ns_path(name);
  if (umount2(path.c_str(), MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
    return make_error("namespace '" + name + "': cannot unmount " + path + ": " + errno_text(errno));
  if (unlink(path.c_str()) < 0 && errno != ENOENT)
    return make_error("namespace '" + name + "': cannot remove " + path + ": " + errno_text(errno));
  return ok_status();
}

Result<Netns> open_namespace(const std::string& name) {
  Netns ns;
  ns.name = name;
  ns.fd = UniqueFd(open(ns_path(name).c_str(), O_RDONLY | O_CLOEXEC));
  if (!ns.fd.valid()) return make_error("namespace '" + name + "': cannot open: " + errno_text(errno));
  ns.inode = inode_of(ns.fd.get());
  Result<NlSock> sock = make_error("unset");
  if (auto s = run_in_netns(ns.fd.get(), [&] { sock = open_route_socket(); }); !s) return s.error();
  if (!sock) return with_context(sock.error(), "namespace '" + name + "'");
  ns.sock = std::move(sock.value());
  return ns;
}

std::vector<std::string> list_namespaces(const std::string& prefix) {
  std::vector<std::string> out;
  DIR* dir = opendir(kNetnsDir);
  if (!dir) return out;
  while (dirent* e = readdir(dir)) {
    std::string n = e->d_name;
    if (n.rfind(prefix, 0) == 0) out.push_back(n);
  }
  closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

Status run_in_netns(int netns_fd, const std::function<void()>& fn) {
  Status result = ok_status();
  std::thread t([&] {
    if (setns(netns_fd, CLONE_NEWNET) < 0) {
      result = make_error("cannot enter network namespace: " + errno_text(errno), "run vpnlab as root");
      return;
    }
    fn();
  });
  t.join();
  return result;
}

Result<UniqueFd> create_node_mount_ns(int netns_fd) {
  Result<UniqueFd> result = make_error("unset");
  std::thread t([&] {
    auto fail = [&](const std::string& what) {
      result = make_error("node mount namespace: " + what + ": " + errno_text(errno), "run vpnlab as root");
    };
    if (setns(netns_fd, CLONE_NEWNET) < 0) return fail("setns(net)");
    if (unshare(CLONE_NEWNS) < 0) return fail("unshare(CLONE_NEWNS)");
    if (mount("", "/", "none", MS_REC | MS_PRIVATE, nullptr) < 0) return fail("make / private");
    // Drop this copy's view of /run/netns: a copied bind mount would keep every lab
    // namespace alive as long as this mount namespace lives.
    umount2(kNetnsDir, MNT_DETACH);
    if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") < 0) return fail("tmpfs on /run");
    // sysfs shows the network namespace of whoever mounts it; this thread is in the node's.
    if (umount2("/sys", MNT_DETACH) == 0) mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
    int fd = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail("open ns/mnt");
    result = UniqueFd(fd);
  });
  t.join();
  return result;
}

Status run_in_node(int netns_fd, int mntns_fd, const std::function<void()>& fn) {
  Status result = ok_status();
  std::thread t([&] {
    // A thread may enter a mount namespace once it no longer shares its fs_struct.
    if (unshare(CLONE_FS) < 0 || setns(mntns_fd, CLONE_NEWNS) < 0) {
      result = make_error("cannot enter a node's mount namespace: " + errno_text(errno));
      return;
    }
    if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) < 0) {
      result = make_error("cannot enter a node's network namespace: " + errno_text(errno));
      return;
    }
    fn();
  });
  t.join();
  return result;
}

Result<std::vector<std::string>> files_in_private_run(int mntns_fd) {
  std::vector<std::string> found;
  auto s = run_in_node(-1, mntns_fd, [&] {
    std::vector<std::string> todo = {"/run"};
    while (!todo.empty() && found.size() < 100) {
      std::string dir = todo.back();
      todo.pop_back();
      DIR* d = opendir(dir.c_str());
      if (!d) continue;
      while (dirent* e = readdir(d)) {
        std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        found.push_back(dir + "/" + n);
        if (e->d_type == DT_DIR) todo.push_back(dir + "/" + n);
      }
      closedir(d);
    }
  });
  if (!s) return s.error();
  return found;
}

namespace {

uint64_t ns_inode_of_link(const std::string& target, const char* kind) {
  // "net:[4026532001]"
  std::string head = std::string(kind) + ":[";
  if (target.rfind(head, 0) != 0) return 0;
  return std::strtoull(target.c_str() + head.size(), nullptr, 10);
}

std::string read_link(const std::string& path) {
  char buf[256];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return {};
  return std::string(buf, n);
}

std::string comm_of(const std::string& pid) {
  std::istringstream in(read_file_text("/proc/" + pid + "/comm"));
  std::string c;
  std::getline(in, c);
  return c;
}

std::vector<std::string> numeric_entries(const std::string& dir_path) {
  std::vector<std::string> out;
  DIR* dir = opendir(dir_path.c_str());
  if (!dir) return out;
  while (dirent* e = readdir(dir))
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') out.emplace_back(e->d_name);
  closedir(dir);
  return out;
}

}  // namespace

std::vector<std::string> namespace_holders(const std::vector<uint64_t>& inodes) {
  std::set<uint64_t> wanted(inodes.begin(), inodes.end());
  std::vector<std::string> holders;
  std::set<uint64_t> mount_namespaces_seen;
  for (const ProcessRef& p : tasks_in_namespaces(inodes))
    holders.push_back("pid " + std::to_string(p.pid) + " (" + p.comm + ")" +
                      (p.tid != p.pid ? " thread " + std::to_string(p.tid) : ""));
  for (const std::string& pid : numeric_entries("/proc")) {
    std::string base = "/proc/" + pid;
    for (const std::string& fd : numeric_entries(base + "/fd")) {
      std::string target = read_link(base + "/fd/" + fd);
      // A process whose fds may be listed but not read (ptrace access refused) refuses all
      // of them: stop at the first instead of paying a failed readlink per fd (here PID 1
      // has 250 fds, half of what `down` read).
      if (target.empty() && errno == EACCES) break;
      if (wanted.count(ns_inode_of_link(target, "net")))
        holders.push_back("fd " + fd + " of pid " + pid + " (" + comm_of(pid) + ")");
    }
    // nsfs bind mounts: one look per mount namespace is enough.
    uint64_t mnt = ns_inode_of_link(read_link(base + "/ns/mnt"), "mnt");
    if (!mnt || !mount_namespaces_seen.insert(mnt).second) continue;
    std::istringstream info(read_file_text(base + "/mountinfo"));
    std::string line;
    while (std::getline(info, line)) {
      auto at = line.find("net:[");
      if (at != std::string::npos && wanted.count(std::strtoull(line.c_str() + at + 5, nullptr, 10)))
        holders.push_back("an nsfs mount in the mount namespace of pid " + pid + " (" + comm_of(pid) + ")");
    }
  }
  return holders;
}

Status wait_namespaces_released(const std::vector<uint64_t>& inodes, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = std::chrono::microseconds(200);
  for (;;) {
    auto holders = namespace_holders(inodes);
    if (holders.empty()) return ok_status();
    if (std::chrono::steady_clock::now() >= deadline)
      return make_error("a lab namespace is still referenced by " + holders.front() +
                            (holders.size() > 1 ? " and " + std::to_string(holders.size() - 1) + " more" : ""),
                        "run 'vpnlab cleanup'; if it persists, that process was not started by vpnlab");
    std::this_thread::sleep_for(pause);  // bounded probe: the kernel sends no event for this
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
}

namespace {
bool netns_work_running() {
  for (const std::string& pid : numeric_entries("/proc")) {
    std::string comm = comm_of(pid);
    if (comm.rfind("kworker/", 0) == 0 && comm.size() > 6 && comm.compare(comm.size() - 6, 6, "+netns") == 0)
      return true;
  }
  return false;
}
}  // namespace

Status wait_kernel_netns_cleanup(double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int idle = 0;
  // Work that is queued but not yet running looks idle: ask for three idle looks in a row.
  while (idle < 3) {
    idle = netns_work_running() ? 0 : idle + 1;
    if (std::chrono::steady_clock::now() >= deadline)
      return make_error("the kernel is still destroying network namespaces after " +
                            std::to_string(static_cast<int>(timeout_s)) + " s",
                        "the machine is busy; results taken now would be disturbed");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // bounded probe: no event exists
  }
  return ok_status();
}

Status remove_namespaces(std::vector<Netns>& namespaces, double timeout_s) {
  std::vector<uint64_t> ids;
  for (const auto& n : namespaces) ids.push_back(n.inode);
  end_processes_in_namespaces(ids, 2000);
  fault_point("teardown");
  Status first = ok_status();
  for (auto& n : namespaces) {
    n.sock.reset();
    n.mntns.reset();
    if (auto s = remove_namespace_file(n.name); !s && first) first = s;
    n.fd.reset();
  }
  namespaces.clear();
  if (!first) return first;
  return wait_namespaces_released(ids, timeout_s);
}

}  // namespace vpnlab
