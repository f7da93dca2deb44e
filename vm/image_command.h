// `vpnlab image build [RECIPE] [--rebuild]`, `image list`, `image clean`.
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

// The default recipe: images/debian12.toml next to products/.
std::string default_image_recipe();
int image_command(const std::vector<std::string>& positional, bool rebuild);

}  // namespace vpnlab
