# Read by cpack when it packages (CPACK_PROJECT_CONFIG_FILE): the .deb gets the version the
# binary inside it reports, taken now rather than when CMake configured.
include("${CMAKE_CURRENT_LIST_DIR}/version_of.cmake")
vpnlab_version_of("${CPACK_VPNLAB_SOURCE_DIR}" "${CPACK_VPNLAB_BASE_VERSION}" version)
set(CPACK_PACKAGE_VERSION "${version}")
set(CPACK_DEBIAN_PACKAGE_VERSION "${version}")
