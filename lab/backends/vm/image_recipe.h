// Which recipe a guest image is made from: the default, or a topology's `image` (what
// `vpnlab image build` and the VM backend both resolve).
#pragma once
#include <string>

namespace vpnlab {

// The default recipe: images/debian12.toml next to products/.
std::string default_image_recipe();
// A topology's `image`: a name in images/ ("debian12-rootfs") or a path to a recipe.
std::string image_recipe_path(const std::string& image);

}  // namespace vpnlab
