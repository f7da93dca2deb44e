#include "lab/backends/hosts/file_mirror.h"

#include <sys/stat.h>

#include <filesystem>
#include <random>

#include "lab/base/encoding.h"
#include "lab/base/fs_util.h"

namespace vpnlab {

namespace fs = std::filesystem;

Status FileMirror::push_inputs() {
  for (const char* sub : {"nodes", "secrets"}) {
    std::error_code ec;
    const fs::path root = fs::path(run_dir_) / sub;
    if (!fs::exists(root, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      struct stat st {};
      const std::string path = it->path().string();
      if (::stat(path.c_str(), &st) != 0) continue;  // removed meanwhile
      const std::pair<uintmax_t, int64_t> stamp{static_cast<uintmax_t>(st.st_size),
                                                st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec};
      if (auto p = pushed_.find(path); p != pushed_.end() && p->second == stamp) continue;
      std::string data = read_file_text(path);
      auto r = agent_->call({{"op", "put"},
                             {"path", path},
                             {"mode", st.st_mode & 07777},
                             {"data", to_base64(reinterpret_cast<const unsigned char*>(data.data()), data.size())}},
                            30000);
      if (!r) return with_context(r.error(), "host '" + host_ + "': copying " + path);
      pushed_[path] = stamp;
    }
  }
  return ok_status();
}

Status FileMirror::fetch(const std::string& path) {
  if (path.empty() || path == "/dev/null") return ok_status();
  auto r = agent_->call({{"op", "get"}, {"path", path}}, 60000);
  if (!r) return with_context(r.error(), "host '" + host_ + "': fetching " + path);
  if (!r->value("exists", false)) return ok_status();
  auto data = from_base64(r->value("data", ""));
  if (!data) return make_error("host '" + host_ + "': " + path + " came back garbled");
  return write_file(path, *data, 0640);
}

Result<bool> host_shares_files(AgentClient& agent, const std::string& run_dir) {
  std::random_device rd;
  const std::string token = std::to_string(rd()) + "-" + std::to_string(rd());
  const std::string path = run_dir + "/.host-probe";
  if (auto s = write_file(path, token, 0600); !s) return s.error();
  auto r = agent.call({{"op", "peek"}, {"path", path}});
  std::error_code ec;
  fs::remove(path, ec);
  if (!r) return r.error();
  return r->value("text", "") == token;
}

}  // namespace vpnlab
