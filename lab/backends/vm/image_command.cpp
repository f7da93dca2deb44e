#include "lab/backends/vm/image_command.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <spdlog/fmt/fmt.h>

#include "lab/backends/vm/image.h"
#include "lab/base/fs_util.h"
#include "lab/model/install_layout.h"

namespace vpnlab {

std::string default_image_recipe() { return shipped_dir(own_binary_dir()) + "/images/debian12.toml"; }

std::string image_recipe_path(const std::string& image) {
  if (image.empty()) return default_image_recipe();
  if (image.find('/') != std::string::npos || (image.size() > 5 && image.substr(image.size() - 5) == ".toml"))
    return image;
  return (std::filesystem::path(default_image_recipe()).parent_path() / (image + ".toml")).string();
}

int image_command(const std::vector<std::string>& positional, bool rebuild) {
  std::string what = positional.empty() ? "" : positional[0];
  std::string cache = image_cache_root();
  if (what == "build") {
    if (geteuid() != 0 && !getenv("VPNLAB_CACHE")) {
      std::cerr << "vpnlab: error: 'image build' writes the cache " << cache
                << " and needs root\nhint: run it as root, or set VPNLAB_CACHE to a directory you own\n";
      return 1;
    }
    auto rc = load_recipe(positional.size() > 1 ? positional[1] : default_image_recipe());
    if (!rc) {
      std::cerr << rc.error().format() << "\n";
      return 1;
    }
    auto im = ensure_image(*rc, cache, rebuild);
    if (!im) {
      std::cerr << im.error().format() << "\n";
      return 1;
    }
    std::cout << fmt::format(
        "{}  kernel {} ({})\n  {}\n  {} {:.1f} s\n", im->name, im->kernel_release, im->kernel_package, im->dir,
        im->cached ? "in the cache (--rebuild to build it again); it was built in" : "built in", im->build_s);
    return 0;
  }
  if (what == "list") {
    auto images = list_images(cache);
    if (images.empty()) std::cout << "no images in " << cache << "/images ('vpnlab image build' makes one)\n";
    for (const auto& im : images) std::cout << fmt::format("{:<10} {:<18} {}\n", im.name, im.kernel_release, im.dir);
    return 0;
  }
  if (what == "clean") {
    auto n = clean_images(cache);
    if (!n) {
      std::cerr << n.error().format() << "\n";
      return 1;
    }
    std::cout << "removed " << *n << " image(s) from " << cache << "/images\n";
    return 0;
  }
  std::cerr << "vpnlab: error: 'image' needs build, list or clean\nhint: see 'vpnlab image --help'\n";
  return 2;
}

}  // namespace vpnlab
