# Read by cpack when it packages (CPACK_PROJECT_CONFIG_FILE): the .deb gets the version the
# binary inside it was built with (its generated header, cmake/version.cmake), whatever the
# checkout says by now.
include("${CMAKE_CURRENT_LIST_DIR}/read_version_header.cmake")
vpnlab_read_version_header("${CPACK_VPNLAB_VERSION_HEADER}" version)
set(CPACK_PACKAGE_VERSION "${version}")
set(CPACK_DEBIAN_PACKAGE_VERSION "${version}")
