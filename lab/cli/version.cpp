#include "lab/cli/version.h"

#include <netlink/version.h>
#include <sodium/version.h>
#include <spdlog/version.h>
#include <toml++/toml.h>
#include <boost/version.hpp>
#include <nlohmann/json.hpp>

#include "lab/run/environment.h"

namespace vpnlab {

namespace {
std::string dotted(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}
}  // namespace

std::string version_text() {
  std::string boost = BOOST_LIB_VERSION;
  for (char& c : boost)
    if (c == '_') c = '.';
  return "vpnlab " + vpnlab_version() + "\n" +
         "built with: libnl " LIBNL_VERSION ", libsodium " SODIUM_VERSION_STRING ", boost " + boost + ", toml++ " +
         dotted(TOML_LIB_MAJOR, TOML_LIB_MINOR, TOML_LIB_PATCH) + ", spdlog " +
         dotted(SPDLOG_VER_MAJOR, SPDLOG_VER_MINOR, SPDLOG_VER_PATCH) + ", nlohmann-json " +
         dotted(NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH) + "\n";
}

}  // namespace vpnlab
