# Read by cpack when it packages (CPACK_PROJECT_CONFIG_FILE): the .deb gets the version the
# binary inside it was built with (its generated header, cmake/version.cmake), whatever the
# checkout says by now.
file(STRINGS "${CPACK_VPNLAB_VERSION_HEADER}" line REGEX "^#define VPNLAB_VERSION ")
if(NOT line MATCHES "\"([^\"]+)\"")
  message(FATAL_ERROR "no VPNLAB_VERSION in ${CPACK_VPNLAB_VERSION_HEADER}: build vpnlab first")
endif()
set(CPACK_PACKAGE_VERSION "${CMAKE_MATCH_1}")
set(CPACK_DEBIAN_PACKAGE_VERSION "${CMAKE_MATCH_1}")
