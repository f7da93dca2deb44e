#include "lab/backends/vm/image_recipe.h"

#include <filesystem>

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

}  // namespace vpnlab
