#include "lab/app/cleanup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "lab/backends/hosts/ssh_channel.h"
#include "lab/backends/vm/guest_lab.h"
#include "lab/base/pidfd.h"
#include "lab/base/private_dir.h"
#include "lab/base/trusted_dir.h"
#include "lab/kernel/namespace.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/run/product_probe.h"
#include "lab/run/run_state.h"

namespace vpnlab {

namespace {

// Says what it would do, or does it and says what it did. Removed through descriptors: a
// link at (or below) the name is removed, never followed.
void remove_path(const std::filesystem::path& path, bool dry_run, CleanupReport* report) {
  if (dry_run) {
    report->actions.push_back("would remove " + path.string());
  } else if (remove_tree(path.string())) {
    report->actions.push_back("removed " + path.string());
  }
}

// A process id read from a file name: true when no such process exists any more.
bool pid_gone(long pid) { return pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

// The lab namespaces, the processes still inside them first.
Status clean_namespaces(const std::vector<std::string>& names, bool dry_run, CleanupReport* report) {
  std::vector<uint64_t> inodes;
  for (const auto& n : names) {
    int fd = open((std::string(kNetnsDir) + "/" + n).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      inodes.push_back(inode_of(fd));
      close(fd);
    }
  }
  if (dry_run) {
    for (const auto& p : processes_in_namespaces(inodes))
      report->actions.push_back("would end process " + std::to_string(p.pid) + " (" + p.comm + ")");
    for (const auto& n : names) report->actions.push_back("would remove namespace " + n);
    return ok_status();
  }
  for (const auto& p : end_processes_in_namespaces(inodes, 2000))
    report->actions.push_back("ended process " + std::to_string(p.pid) + " (" + p.comm + ")");
  Status first = ok_status();
  for (const auto& n : names) {
    auto s = remove_namespace_file(n);
    if (s)
      report->actions.push_back("removed namespace " + n);
    else if (first)
      first = s;
  }
  if (!first) return first;
  return wait_namespaces_released(inodes, 10);
}

// Version probes' private directories of a vpnlab that was killed before it removed them
// (/tmp/PREFIX<pid>-XXXXXX): only this user's own, and only those whose process is gone.
void clean_dead_probe_files(bool dry_run, CleanupReport* report) {
  const std::string probe_name = kVersionProbePrefix;
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator(kPrivateDirParent, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(probe_name, 0) != 0 || !pid_gone(std::strtol(name.c_str() + probe_name.size(), nullptr, 10)))
      continue;
    struct stat st {};
    if (lstat(e.path().c_str(), &st) != 0 || st.st_uid != geteuid()) continue;  // another user's name is theirs
    remove_path(e.path(), dry_run, report);
  }
}

// ssh's private directories (host keys, control sockets) of a vpnlab killed before it
// removed its own: PREFIX<pid>-XXXXXX whose process no longer exists (cleanup holds the
// run lock; a live vpnlab's pid is alive).
void clean_dead_ssh_dirs(bool dry_run, CleanupReport* report) {
  const std::filesystem::path prefix = ssh_private_dir_prefix();
  if (prefix.empty()) return;  // none made: ssh_private_dir() refuses without a private place
  const std::string start = prefix.filename().string();
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator(prefix.parent_path(), ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(start, 0) != 0 || !e.is_directory(ec) || e.is_symlink(ec)) continue;
    char* end = nullptr;
    long pid = std::strtol(name.c_str() + start.size(), &end, 10);
    // Before 0.2.0's pid in the name (PREFIX + mkdtemp's six characters): stale unless a
    // control socket is in it.
    const bool legacy = name.size() == start.size() + 6 && name.find('-', start.size()) == std::string::npos;
    if (legacy) {
      bool socket = false;
      for (auto& f : std::filesystem::directory_iterator(e.path(), ec)) socket = socket || f.is_socket(ec);
      if (socket) continue;
    } else if (*end != '-' || !pid_gone(pid)) {
      continue;
    }
    remove_path(e.path(), dry_run, report);
  }
}

}  // namespace

Result<CleanupReport> cleanup_lab_objects(bool dry_run, const std::vector<std::string>& only) {
  CleanupReport report;
  std::vector<std::string> names = list_namespaces(kLabPrefix);
  if (!only.empty())
    names.erase(
        std::remove_if(names.begin(), names.end(),
                       [&](const std::string& n) { return std::find(only.begin(), only.end(), n) == only.end(); }),
        names.end());
  if (auto s = clean_namespaces(names, dry_run, &report); !s) return s.error();
  // The VM backend's own state on this host, once no namespace of its run is left.
  for (const auto& dir : vm_state_dirs(only)) remove_path(dir, dry_run, &report);
  // What a killed vpnlab left outside any lab: only in a full cleanup (`down` need not
  // scan /tmp and /run).
  if (only.empty()) {
    clean_dead_probe_files(dry_run, &report);
    clean_dead_ssh_dirs(dry_run, &report);
  }
  // State files whose run is gone (cleanup holds the run lock, so none is live).
  for (const auto& st : list_states()) {
    if (!only.empty() && st.namespaces != only) continue;
    if (dry_run) {
      report.actions.push_back("would remove state of run " + st.run_id);
    } else if (remove_state(st.run_id)) {
      report.actions.push_back("removed state of run " + st.run_id);
    }
  }
  return report;
}

Status refuse_debris() {
  // Called with the run lock held: no other run is live, so a lab namespace that no
  // `vpnlab up` keeps belongs to a run that was killed, and its daemons may still be
  // running and load the machine (a row once started with outside load 122 from them).
  std::vector<std::string> kept;
  for (const auto& st : list_states())
    if (st.kept) kept.insert(kept.end(), st.namespaces.begin(), st.namespaces.end());
  std::vector<std::string> debris;
  for (const auto& n : list_namespaces(kLabPrefix)) {
    // (`products` and `doctor` probe in anonymous namespaces: never listed here.)
    if (std::find(kept.begin(), kept.end(), n) == kept.end()) debris.push_back(n);
  }
  if (debris.empty()) return ok_status();
  std::string names;
  for (size_t i = 0; i < debris.size() && i < 3; ++i) names += (names.empty() ? "" : ", ") + debris[i];
  if (debris.size() > 3) names += ", ...";
  return make_error(
      std::to_string(debris.size()) + " namespace(s) of an earlier run are still there (" + names +
          "), with whatever still runs in them: they would load the machine and skew this run",
      "run 'vpnlab cleanup' first (it ends the processes in them and removes them; '--dry-run' lists them)");
}

}  // namespace vpnlab
