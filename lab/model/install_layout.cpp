#include "lab/model/install_layout.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "lab/model/product_spec.h"

#ifndef VPNLAB_SOURCE_DIR
#define VPNLAB_SOURCE_DIR "."
#endif

namespace vpnlab {

namespace {
bool is_dir(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
std::string normal(const std::string& p) { return std::filesystem::path(p).lexically_normal().string(); }
}  // namespace

std::string shipped_dir(const std::string& own_dir) {
  std::string installed = normal(own_dir + "/../share/vpnlab");
  if (!own_dir.empty() && is_dir(installed + "/products")) return installed;
  return VPNLAB_SOURCE_DIR;
}

std::string helper_dir(const std::string& own_dir) {
  std::string installed = normal(own_dir + "/../libexec/vpnlab");
  if (!own_dir.empty() && access((installed + "/vpnlab-agent").c_str(), X_OK) == 0) return installed;
  return own_dir;
}

std::string products_path(const std::string& own_dir) {
  std::vector<std::string> dirs;
  auto add_if_dir = [&](const std::string& d) {
    if (!d.empty() && is_dir(d) && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  };
  add_if_dir(shipped_dir(own_dir) + "/products");
  if (const char* env = getenv("VPNLAB_PRODUCTS"); env && *env)
    for (const auto& d : split_products_path(env)) add_if_dir(d);
  if (const char* home = getenv("HOME"); home && *home) add_if_dir(std::string(home) + "/.config/vpnlab/products");
  if (dirs.empty()) return "products";
  std::string out;
  for (const auto& d : dirs) out += (out.empty() ? "" : ":") + d;
  return out;
}

}  // namespace vpnlab
