#include "lab/base/version.h"

#include <vpnlab_version.h>  // generated at build time (cmake/version.cmake)

namespace vpnlab {

std::string vpnlab_version() { return VPNLAB_VERSION; }

}  // namespace vpnlab
