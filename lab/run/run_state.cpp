#include "lab/run/run_state.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"

namespace vpnlab {

namespace {
Status ensure_state_dir() {
  if (mkdir(state_dir().c_str(), 0700) < 0 && errno != EEXIST)
    return make_error("cannot create " + state_dir() + ": " + errno_text(errno), "run vpnlab as root");
  std::string runs = state_dir() + "/runs";
  if (mkdir(runs.c_str(), 0700) < 0 && errno != EEXIST)
    return make_error("cannot create " + runs + ": " + errno_text(errno));
  return ok_status();
}
}  // namespace

std::string state_dir() {
  const char* dir = getenv("VPNLAB_STATE_DIR");
  return dir && *dir ? dir : kStateDir;
}

std::string state_path(const std::string& run_id) { return state_dir() + "/runs/" + run_id + ".json"; }

Status write_state(const RunState& s) {
  if (auto d = ensure_state_dir(); !d) return d;
  nlohmann::json j = {{"run_id", s.run_id},         {"lab", s.lab},        {"topology_file", s.topology_file},
                      {"run_dir", s.run_dir},       {"pid", s.pid},        {"kept", s.kept},
                      {"namespaces", s.namespaces}, {"backend", s.backend}};
  // Whole or not at all, never through a link (replace_file writes a new file and renames it).
  return replace_file(state_path(s.run_id), j.dump(2) + "\n", 0644);
}

Result<RunState> read_state(const std::string& path) {
  auto text = read_whole_file(path);
  if (!text) return text.error();
  auto j = parse_json_bounded(*text);
  if (j.is_discarded() || !j.is_object()) return make_error(path + " is not a vpnlab state file");
  RunState s;
  try {
    s.run_id = j.value("run_id", "");
    s.lab = j.value("lab", "");
    s.topology_file = j.value("topology_file", "");
    s.run_dir = j.value("run_dir", "");
    s.pid = whole_number_or(j, "pid", 0);  // not a whole number: no process to look for
    s.kept = j.value("kept", false);
    s.namespaces = j.value("namespaces", std::vector<std::string>{});
    s.backend = j.value("backend", "netns");
  } catch (const nlohmann::json::exception& e) {
    return make_error(path + ": a field has the wrong type (" + e.what() + ")",
                      "'vpnlab cleanup' removes it with the lab's namespaces");
  }
  return s;
}

std::vector<RunState> list_states() {
  std::vector<RunState> out;
  std::string dir_path = state_dir() + "/runs";
  DIR* dir = opendir(dir_path.c_str());
  if (!dir) return out;
  while (dirent* e = readdir(dir)) {
    std::string n = e->d_name;
    if (n.size() > 5 && n.substr(n.size() - 5) == ".json")
      if (auto s = read_state(dir_path + "/" + n)) out.push_back(s.value());
  }
  closedir(dir);
  return out;
}

Status remove_state(const std::string& run_id) {
  if (unlink(state_path(run_id).c_str()) < 0 && errno != ENOENT)
    return make_error("cannot remove " + state_path(run_id) + ": " + errno_text(errno));
  return ok_status();
}

Result<RunLock> RunLock::acquire() {
  if (auto d = ensure_state_dir(); !d) return d.error();
  std::string path = state_dir() + "/lock";
  RunLock lock;
  lock.fd_ = UniqueFd(open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
  if (!lock.fd_.valid()) return make_error("cannot open " + path + ": " + errno_text(errno), "run vpnlab as root");
  if (flock(lock.fd_.get(), LOCK_EX | LOCK_NB) < 0) {
    char buf[32] = {};
    if (pread(lock.fd_.get(), buf, sizeof buf - 1, 0) < 0) buf[0] = '\0';  // then the message names no pid
    return make_error(
        "another vpnlab run holds the lock (pid " + std::string(buf).substr(0, std::string(buf).find('\n')) + ")",
        "wait for it to finish: two runs on one machine would measure each other");
  }
  std::string pid = std::to_string(getpid()) + "\n";
  // The pid is for the message another run prints; the lock is the flock, held either way.
  if (ftruncate(lock.fd_.get(), 0) == 0) [[maybe_unused]]
    const ssize_t written = pwrite(lock.fd_.get(), pid.data(), pid.size(), 0);
  return lock;
}

}  // namespace vpnlab
