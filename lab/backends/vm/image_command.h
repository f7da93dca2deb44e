// `vpnlab image build [RECIPE] [--rebuild]`, `image list`, `image clean`.
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

// The default recipe: images/debian12.toml next to products/.
std::string default_image_recipe();
// A topology's `image`: a name in images/ ("debian12-rootfs") or a path to a recipe.
std::string image_recipe_path(const std::string& image);
int image_command(const std::vector<std::string>& positional, bool rebuild);

}  // namespace vpnlab
