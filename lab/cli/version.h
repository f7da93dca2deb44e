// `vpnlab --version`: this build's version (as environment.json records it) and the
// versions of the libraries it was built against.
#pragma once
#include <string>

namespace vpnlab {

std::string version_text();

}  // namespace vpnlab
