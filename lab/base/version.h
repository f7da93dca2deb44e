// This build's version: `git describe` of the checkout it was built from (taken at every
// build by cmake/version.cmake), else the project version. environment.json records it;
// a host agent and its controller must agree on it.
#pragma once
#include <string>

namespace vpnlab {

std::string vpnlab_version();

}  // namespace vpnlab
